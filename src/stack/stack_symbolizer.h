// StackSymbolizer: names the frames of --stack (src/stream/stack_join.h).
//
// Kernel frames: /proc/kallsyms gives the symbol and offset (vmlinux and
// modules, where KASLR put them); the running kernel's DWARF vmlinux, when
// one is found, gives file:line and the inlined calls, at the address
// moved back by KASLR's offset (kallsyms' _text minus the vmlinux's).
// A module's frames get them from its debug .ko (found where -m MODULE
// finds it, with the loaded module's build-id), placed by the function
// kallsyms names (src/stack/module_placement.h). The frames of the tracing code
// that recorded a kprobe's stack (the kprobe handler, ftrace's trampoline)
// are left out: the stack starts at the probed function.
//
// User frames: the process's /proc/PID/maps, read the first time one of
// its stacks is seen (while it lives), turn each address into a file and
// an offset; the file's symbols and DWARF do the rest. When the process is
// already gone, the frames in the probed binary are still placed, by the
// probe's own address (the event's ip is at the probe's file offset).
//
// Every file is opened once; every answer is kept (bounded).
//
// A file whose debug file must come from a debuginfod server is never
// waited for here: the fetch runs in the background
// (dwarf/source/debuginfod_background.h), ready() says "not yet" for the
// events whose frames it would name (they wait in the join while the stream
// goes on), and once it is done the file is opened again with its DWARF.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <string>
#include <unordered_map>
#include <vector>

#include "dwarf/debug_info.h"
#include "dwarf/opened_files.h"
#include "dwarf/source/debuginfod_background.h"
#include "src/definition/trace_definition.h"
#include "src/kernel/kallsyms.h"
#include "src/stream/process_maps.h"
#include "src/stack/frame_expansion.h"
#include "src/stream/stack_join.h"

namespace kpp {

// Where the stacks come from.
enum class StackSource {
  Live,  // this boot, processes that may still run: kallsyms, /proc/PID/maps
  File,  // a trace.dat: another boot, pids since reused; only the probed
         // binaries are placed (by their probes), kernel frames stay addresses
};

class StackSymbolizer : public FrameSymbolizer {
 public:
  // `vmlinux`: the DWARF vmlinux of the running kernel to read lines from;
  // empty: found where distributions put it (none found: symbols only).
  // Every file is opened with `options` (--no-cache, --no-demangle).
  explicit StackSymbolizer(StackSource source = StackSource::Live, std::string vmlinux = {},
                           dwarf::OpenOptions options = {});
  ~StackSymbolizer() override;

  // The uprobes among `definitions` (what tracefs lists): each event fires
  // at its file offset of its binary.
  void add_probes(const std::vector<TraceDefinition> &definitions);
  // Or where to get them, asked once, when a frame first needs them (a
  // trace.dat without stacks never lists tracefs).
  void set_probe_source(std::function<std::vector<TraceDefinition>()> source) { probe_source_ = std::move(source); }

  // Where else a process's mappings are known (the DWARF unwinder follows
  // them through perf: they outlive the process); asked when /proc/PID/maps
  // has no mapping for a frame.
  void set_maps_source(std::function<std::vector<FileMapping>(pid_t)> source) { maps_source_ = std::move(source); }

  void symbolize(const Event &event, std::vector<StackFrame> &frames) override;
  bool ready(const Event &event, const std::vector<StackFrame> &frames) override;

 private:
  struct Probe {
    std::string path;
    uint64_t file_offset = 0;
  };
  // How many frames at the top of a kprobe event's kernel stack are the
  // tracing code's, before the probed function's own frame.
  size_t tracing_frames(const Event &event, const std::vector<StackFrame> &frames);
  std::vector<StackFrame> kernel_frames(const StackFrame &frame, FrameAddress kind);
  std::vector<StackFrame> user_frames(const Event &event, const StackFrame &frame, FrameAddress kind);
  const std::vector<FileMapping> &maps_of(pid_t pid, uint64_t address);
  // Whether the file of the user frame at `ip` is complete: false while its
  // debug file is being fetched; reopened (and answers forgotten) once done.
  bool user_file_ready(pid_t pid, uint64_t ip);
  dwarf::DebugInfo *vmlinux();
  // The loaded module's debug .ko, opened once (null when none is found).
  dwarf::DebugInfo *module_debug(const std::string &module);

  StackSource source_;
  std::string vmlinux_path_;
  std::optional<std::optional<Kallsyms>> kallsyms_;  // read on first use
  bool vmlinux_tried_ = false;
  std::unique_ptr<dwarf::DebugInfo> vmlinux_;
  int64_t kaslr_offset_ = 0;  // runtime address minus the vmlinux's
  // Before files_: they are opened with it, and it outlives them.
  std::unique_ptr<dwarf::DebuginfodBackground> background_;
  dwarf::OpenedFiles files_;  // the programs' and libraries' (bounded: the answers given stay in cache_)
  std::unordered_map<std::string, std::unique_ptr<dwarf::DebugInfo>> modules_;  // by module name; null: none
  std::unordered_map<pid_t, std::vector<FileMapping>> maps_;
  std::unordered_map<std::string, Probe> probes_;
  std::function<std::vector<TraceDefinition>()> probe_source_;
  std::function<std::vector<FileMapping>(pid_t)> maps_source_;
  // The mapping of `address` in `pid`, by /proc or by maps_source_ (null: none).
  const FileMapping *mapping_for(pid_t pid, uint64_t address);
  std::unordered_map<pid_t, std::vector<FileMapping>> sourced_maps_;
  // Answers, by (pid or 0 for the kernel, ip, kind).
  std::map<std::tuple<pid_t, uint64_t, int>, std::vector<StackFrame>> cache_;
};

}  // namespace kpp
