// FoldedSink: --folded, the stacks of the events counted, one line per
// distinct stack in the folded form flame-graph tools read (Brendan
// Gregg's flamegraph.pl, speedscope, inferno):
//
//   python3.11;_start;__libc_start_main;...;type_ready;add_tp_new_wrapper;PyDict_SetItem 1043
//
// root first: the task's name, then the outermost frame down to the
// innermost (user frames, then the kernel frames the code ran into),
// inlined functions as frames of their own; a frame without a name is its
// address (0x7f3e2a423d90). An event without a stack counts under its
// task's name alone, so the counts add up to the events. Written when the
// stream ends, by count, most first.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "src/stream/event_sink.h"

namespace kpp {

// The folded key of `event`'s stack (no count).
std::string folded_stack(const Event &event);

class FoldedSink : public EventSink {
 public:
  // `out` is not owned and must stay open while the sink is used.
  explicit FoldedSink(std::FILE *out) : out_(out) {}

  Status on_event(const Event &event) override;
  Status on_finish() override;

  const std::map<std::string, uint64_t> &counts() const { return counts_; }

 private:
  std::FILE *out_;
  std::map<std::string, uint64_t> counts_;
  std::string key_;
};

}  // namespace kpp
