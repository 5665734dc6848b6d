// DwarfUnwinder: a user stack unwound from the registers and the stack
// window perf sampled (src/stream/perf_user_stacks.h), by elfutils'
// libdwfl over the call-frame information of the process's files: each
// frame's CFA and return address come from the .eh_frame (or .debug_frame)
// rules at its pc, so a probe at a function's first instruction and
// frameless -O2 code keep their callers.
//
// Each process's executable mappings are followed as perf reports them
// (mmap, exec, fork: ProcessChange), starting from /proc/PID/maps for a
// process that was there before; so a process that exited before its
// stacks were read is still unwound, as perf does it. The files are
// reported to libdwfl (the vDSO from this process's own image: one kernel,
// one vDSO) when a stack of that process is first unwound, and again after
// its mappings changed. The registers and memory libdwfl asks for come
// from the sample alone (memory outside the window ends the walk). Where a
// file has no usable CFI libdwfl walks the frame pointers (x86_64's
// backend does), and the unwinder says so once per file.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/stream/dwarf_user_stacks.h"

struct Dwfl;
struct Dwfl_Module;

namespace kpp {

class DwarfUnwinder : public UserStackUnwinder {
 public:
  static constexpr size_t kMaxFrames = 127;  // perf's default max stack

  DwarfUnwinder();
  ~DwarfUnwinder() override;

  std::vector<uint64_t> unwind(const UserStackSample &sample) override;
  void on_change(const ProcessChange &change) override;
  std::vector<std::string> take_notes() override;

  // The mappings of `pid` as the unwinder knows them (perf's records: they
  // outlive the process), for naming its frames. Any thread.
  std::vector<FileMapping> maps_of(int pid) const;

  // Used by libdwfl's callbacks (dwarf_unwinder.cpp).
  const UserStackSample *current() const { return current_; }
  // Notes, once per file, that `module` has no CFI.
  void check_cfi(Dwfl_Module *module);

 private:
  struct Process;
  // The process `pid`; with `read_proc`, its maps from /proc when they are
  // not all known yet.
  Process &process(int pid, bool read_proc);
  // The process's Dwfl with its files reported (null when it has none).
  Dwfl *dwfl_of(int pid, Process &p);
  void evict();

  mutable std::mutex mutex_;  // guards processes_' maps (read by maps_of)
  std::unordered_map<int, std::unique_ptr<Process>> processes_;
  uint64_t clock_ = 0;  // for the least recently used
  int vdso_fd_ = -1;    // this process's vDSO image in a memfd (-1: none)
  const UserStackSample *current_ = nullptr;
  std::set<std::string> checked_;
  std::vector<std::string> notes_;
};

}  // namespace kpp
