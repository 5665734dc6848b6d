// PerfUserStacks: the user registers and a window of the user stack at each
// hit of some uprobe sites, as `perf record --call-graph dwarf` captures
// them: sampling every hit with PERF_SAMPLE_REGS_USER |
// PERF_SAMPLE_STACK_USER, read from one mmap'ed ring per CPU.
//
// The samples come from perf's own uprobes (the "uprobe" PMU: a probe at
// the same file offset that lives as long as its perf fd), one per site and
// CPU, not from the user's uprobe event: the kernel refuses perf on a
// uprobe event that a tracefs instance has enabled (EINTR from
// perf_event_open), and the event stays in tracefs for trace.dat. Both
// probes share the kernel's uprobe at that address: one breakpoint, two
// handlers, the sample stamped within microseconds of the event.
//
// Why perf and not fetch-args: a uprobe's fetch-args read at most 64
// array elements per argument (512 bytes as u64[64]), so an 8 KiB window
// would be 16 arguments of 64 separate user reads each, in every event,
// and events that big need larger ring-buffer sub-buffers; perf copies the
// window with one copy_from_user, beside the tracefs event, and leaves the
// user's event as it is. The two streams are joined by thread and time
// (DwarfUserStacks). The sample's clock is CLOCK_MONOTONIC, the tracefs
// instance's "mono".
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "src/stream/process_maps.h"
#include "util/result.h"

namespace kpp {

// One hit's user state, as perf sampled it.
struct UserStackSample {
  int pid = 0, tid = 0, cpu = 0;
  uint64_t time_ns = 0;           // CLOCK_MONOTONIC
  size_t event = 0;               // index into the sites opened
  uint64_t regs_mask = 0;         // perf's register numbers (asm/perf_regs.h) present
  std::vector<uint64_t> regs;     // one per bit of regs_mask, low bit first
  uint64_t sp = 0;                // the stack pointer: the address of stack[0]
  std::vector<uint8_t> stack;     // the window the kernel could copy
  // The register perf numbers `perf_reg` (0 when absent).
  uint64_t reg(int perf_reg) const;
};

// What perf says of the processes' address spaces as they change (the
// side-band records of the first event on each CPU), so that a stack is
// unwound with the files its process had mapped, after it is gone too.
struct ProcessChange {
  enum Kind { Mapped, Exec, Fork } kind = Mapped;
  int pid = 0;
  int parent = 0;        // Fork: the process it was forked from
  FileMapping mapping;   // Mapped: an executable mapping of a file ("[vdso]" too)
};

// Where a uprobe is: the file and the offset in it (a uprobe definition's
// PATH:0xOFFSET), at its entry or at its return (r:).
struct UprobeSite {
  std::string path;
  uint64_t offset = 0;
  bool retprobe = false;
};

struct PerfUserStacksOptions {
  std::vector<UprobeSite> sites;
  size_t window = 8192;             // bytes of stack per sample (a multiple of 8)
  size_t ring_kb = 16384;           // per CPU, rounded down to a power of two pages
};

class PerfUserStacks {
 public:
  // Opens and enables the events on every online CPU. Errors name the
  // event and the kernel's reason (no perf_event_open, a window too large).
  static Result<std::unique_ptr<PerfUserStacks>> open(const PerfUserStacksOptions &options);
  ~PerfUserStacks();
  PerfUserStacks(const PerfUserStacks &) = delete;
  PerfUserStacks &operator=(const PerfUserStacks &) = delete;

  // Waits up to `timeout_ms` for a ring to fill past its watermark.
  void wait(int timeout_ms);
  // Hands every sample written since the last drain to `take` (the sample
  // is reused afterwards). Returns how many.
  // Changes to the processes' mappings go to `changed` as they come, in
  // each ring's order.
  size_t drain(const std::function<void(const UserStackSample &)> &take,
               const std::function<void(const ProcessChange &)> &changed);
  // Samples the kernel could not write (a ring was full).
  uint64_t lost() const { return lost_; }
  // When they were: each loss lies strictly between the times of the two
  // samples its ring kept around it (PERF_RECORD_LOST is written just
  // before the next sample that fits). Moved out; in the order found.
  struct Loss {
    int cpu = 0;
    uint64_t after_ns = 0, before_ns = 0;
  };
  std::vector<Loss> take_losses() { return std::move(losses_); }
  // Stops sampling (what was written can still be drained).
  void disable();

 private:
  struct Ring {
    int cpu = 0;
    uint64_t last_time = 0;  // of the last sample read
    bool lost = false;       // a loss was read since
    uint64_t lost_after = 0;
    int fd = -1;  // the first event's on this CPU: the others write to its ring
    void *base = nullptr;
    size_t data_size = 0;
  };
  PerfUserStacks() = default;
  Status open_cpu(int cpu, const PerfUserStacksOptions &options);
  size_t drain_ring(Ring &ring, const std::function<void(const UserStackSample &)> &take,
                    const std::function<void(const ProcessChange &)> &changed);
  bool parse_sample(const uint8_t *rec, size_t size);
  // A side-band record (mmap2, comm with exec, fork) as a change, or false.
  bool parse_change(uint32_t type, uint16_t misc, const uint8_t *rec, size_t size);

  std::vector<Ring> rings_;
  std::vector<int> fds_;
  std::vector<uint64_t> ids_;  // perf's sample id of each fd -> the event index (by position)
  std::vector<size_t> id_event_;
  int pmu_ = -1;  // perf's uprobe PMU
  uint64_t regs_mask_ = 0;
  size_t page_size_ = 4096;
  uint64_t lost_ = 0;
  std::vector<Loss> losses_;
  std::vector<uint8_t> scratch_;  // a record that wraps the ring's end
  UserStackSample sample_;
  ProcessChange change_;
};

}  // namespace kpp
