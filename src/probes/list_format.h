// --list output: perf probe's line form, and JSON lines for scripts.
#pragma once

#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "dwarf/opened_files.h"
#include "src/definition/trace_definition.h"

namespace kpp {

// Opens each probed binary's DWARF once, to turn addresses back into
// source places; remembers the binaries that have none. Given `files`, it
// shares them with the other readers of the same probes (the live view's
// events' sites, its rows and their latency pairs open each program once).
class SourceLookup {
 public:
  explicit SourceLookup(dwarf::OpenOptions options = {})
      : files_(std::make_shared<dwarf::OpenedFiles>(std::move(options))) {}
  explicit SourceLookup(std::shared_ptr<dwarf::OpenedFiles> files) : files_(std::move(files)) {}
  // "walk:5@prog.c", "add@prog.c", "add%return@prog.c"; without debug info
  // perf's fallback, "walk+0x1e" (uprobes: the file offset, "0x1149").
  std::string point_of(const TraceDefinition &def);
  // The files opened so far, for other readers of the same probes (latency_sites()).
  dwarf::OpenedFiles &files() { return *files_; }

 private:
  std::shared_ptr<dwarf::OpenedFiles> files_;
};

// "  probe_prog:walk_L5     (on walk:5@prog.c in /path/prog with name i s)"
// `kernel_names`: the arguments as the kernel names them (a fixup's suffix
// kept: "delta__ks5"), as perf probe -l shows them; else their plain names.
std::string format_list_line(const TraceDefinition &def, const std::string &point, bool kernel_names = false);

// One JSON object (no newline) describing the probe; the schema is in
// Documentation/kprobe-probe.txt (LIST FORMAT) and is stable.
// `flags` are the kernel's status words for a kprobe (debugfs kprobes/list:
// GONE, DISABLED, OPTIMIZED, FTRACE), as "flags":[...]; absent when empty.
// `hits` nullopt: unknown ("hits":null; see ProbeEngine::probe_counts).
std::string format_list_json(const TraceDefinition &def, const std::string &point, std::optional<uint64_t> hits,
                             std::optional<uint64_t> misses, const std::vector<std::string> &flags = {});

// What --list appends after perf's line: " [DISABLED][FTRACE]" when the kernel
// lists flags, then " hits=N" (" hits=N misses=M" for kprobes) once the probe
// has been hit or missed; "" for a fresh probe, whose line stays perf's;
// " hits=?" when its counts are unknown (ProbeEngine::probe_counts).
std::string format_list_status(const std::vector<std::string> &flags, std::optional<uint64_t> hits,
                               std::optional<uint64_t> misses);

}  // namespace kpp
