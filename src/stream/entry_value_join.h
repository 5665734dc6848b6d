// EntryValueJoin: puts back together a probe and the companion probes that
// read, at its function's entry, the values it needs from there
// (DW_OP_entry_value; see ResolvedProbe::companions).
//
// Which events are companions comes from Companions (src/stream/companions.h),
// never from a name alone. The entry companion carries the values read at
// the entry and the exit companion marks the function's return; each thread
// keeps a stack of live entries, so that recursion joins each hit of the
// owner with its own call. The companions are not passed on; the owner is
// passed on with the innermost entry's fields appended. Raw pages
// (trace.dat) go through untouched.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/stream/companions.h"
#include "src/stream/event_sink.h"

namespace kpp {

class EntryValueJoin : public EventSink {
 public:
  // `downstream` is not owned.
  EntryValueJoin(Companions companions, std::vector<EventSink *> downstream);

  Status on_start(const StreamInfo &info) override;
  bool wants_events() const override;
  bool wants_pages() const override;
  Status on_page(int cpu, std::span<const uint8_t> page) override;
  Status on_event(const Event &event) override;
  void on_lost(int cpu, int64_t count) override;
  Status on_batch_end() override;
  Status on_finish() override;

  const Companions &companions() const { return companions_; }
  // Before on_start(): the companions recognised once the formats are known.
  void set_companions(Companions companions) { companions_ = std::move(companions); }

  // Events handed on to the sinks: what the user is shown (companions
  // folded in, not counted).
  uint64_t forwarded() const { return forwarded_; }

 private:
  uint64_t forwarded_ = 0;
  Status forward(const Event &event);

  Companions companions_;
  std::vector<EventSink *> downstream_;
  // (thread, "group:event") -> the fields of each live call, innermost last.
  std::map<std::pair<int, std::string>, std::vector<std::vector<Field>>> live_;
  Event joined_;     // reused, to keep allocations off the hot path
  std::string key_;  // "system:event" of the event at hand, reused
};

}  // namespace kpp
