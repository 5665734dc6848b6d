// LivePages: an EventSink that keeps the latest raw ring-buffer pages of
// each CPU in memory, so the live view's `w` key can write what it has
// buffered to a trace.dat after the fact (the pages are copied as read,
// so trace-cmd decodes the file exactly as a `record` one). With user
// stacks unwound from DWARF, which no page holds, it keeps the stacked
// events of the pages it keeps too, and the file carries them as
// `record --stack` writes them (user_stack_table.h).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "src/stream/event_sink.h"
#include "util/result.h"

namespace kpp {

class LivePages : public EventSink {
 public:
  // Keeps at most `budget_bytes` of pages, split evenly between CPUs;
  // older pages of a CPU are dropped first.
  // `dwarf_user_stacks`: the session unwinds user stacks from DWARF.
  LivePages(size_t budget_bytes, bool dwarf_user_stacks)
      : budget_(budget_bytes), dwarf_user_stacks_(dwarf_user_stacks) {}

  bool wants_events() const override { return dwarf_user_stacks_; }
  bool wants_pages() const override { return true; }
  Status on_start(const StreamInfo &info) override;
  Status on_page(int cpu, std::span<const uint8_t> page) override;
  Status on_event(const Event &event) override;

  // Writes every page kept to a new trace.dat at `path`; returns the number
  // of pages written. Errors: nothing buffered yet, the file cannot be written.
  Result<uint64_t> write(const std::string &path) const;

  uint64_t pages() const;

 private:
  // Drops `cpu`'s stacked events older than its oldest page kept.
  void forget_stacks_before_pages(size_t cpu);

  size_t budget_;
  bool dwarf_user_stacks_;
  size_t per_cpu_ = 0;  // pages per CPU
  StreamInfo info_;
  std::vector<std::deque<std::vector<uint8_t>>> cpus_;
  // Per CPU, the events with user frames (their time, CPU, thread and
  // stack only), oldest first.
  std::vector<std::deque<Event>> stacked_;
};

}  // namespace kpp
