// The live view's Kernel pane: the histograms the kernel keeps for us.
//
// Once a tick, it looks in each tracefs instance of ours ("kprobe-probe-PID",
// stale_instances.h: a `kprobe-probe hist` running in another terminal, or
// this view's own) for hist triggers on the dynamic events (kprobes, uprobes,
// fprobes, synthetic events: the only events we make), reads each one's
// `hist` file and formats it as `kprobe-probe hist` prints it. Triggers that
// are not plain counting histograms (the variables and actions of --latency's
// entry and return) are left out; the latency histogram itself is shown.
//
// tracefs is shared with other users: every read is bounded (instances,
// events, bytes of a file, rows shown) and a file that vanishes between two
// reads (the hist ended) is simply not shown.
#pragma once

#include <string>
#include <vector>

#include "src/tracefs/tracefs.h"
#include "tui/kernel_histogram.h"

namespace kpp {

class KernelHistograms {
 public:
  explicit KernelHistograms(Tracefs tracefs) : tracefs_(std::move(tracefs)) {}

  // The histograms running now, by instance and event name.
  std::vector<tui::KernelHistogram> read() const;

 private:
  Tracefs tracefs_;
};

}  // namespace kpp
