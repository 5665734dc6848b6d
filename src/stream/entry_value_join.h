// EntryValueJoin: puts back together a probe and the companion probes that
// read, at its function's entry, the values it needs from there
// (DW_OP_entry_value; see ResolvedProbe::companions).
//
// "G:E__entry" carries the values read at the entry and "G:E__exit" marks
// the function's return; each thread keeps a stack of live entries, so that
// recursion joins each hit of "G:E" with its own call. The companions are
// not passed on; "G:E" is passed on with the innermost entry's fields
// appended. Raw pages (trace.dat) go through untouched.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/stream/event_sink.h"

namespace kpp {

class EntryValueJoin : public EventSink {
 public:
  // `downstream` is not owned.
  explicit EntryValueJoin(std::vector<EventSink *> downstream);

  Status on_start(const StreamInfo &info) override;
  bool wants_events() const override;
  bool wants_pages() const override;
  Status on_page(int cpu, std::span<const uint8_t> page) override;
  Status on_event(const Event &event) override;
  void on_lost(int cpu, int64_t count) override;
  Status on_finish() override;

 private:
  Status forward(const Event &event);

  std::vector<EventSink *> downstream_;
  // (thread, "group:event") -> the fields of each live call, innermost last.
  std::map<std::pair<int, std::string>, std::vector<std::vector<Field>>> live_;
  Event joined_;  // reused, to keep allocations off the hot path
};

}  // namespace kpp
