// LivePages: an EventSink that keeps the latest raw ring-buffer pages of
// each CPU in memory, so the live view's `w` key can write what it has
// buffered to a trace.dat after the fact (the pages are copied as read,
// so trace-cmd decodes the file exactly as a `record` one).
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
  explicit LivePages(size_t budget_bytes) : budget_(budget_bytes) {}

  bool wants_events() const override { return false; }
  bool wants_pages() const override { return true; }
  Status on_start(const StreamInfo &info) override;
  Status on_page(int cpu, std::span<const uint8_t> page) override;

  // Writes every page kept to a new trace.dat at `path`; returns the number
  // of pages written. Errors: nothing buffered yet, the file cannot be written.
  Result<uint64_t> write(const std::string &path) const;

  uint64_t pages() const;

 private:
  size_t budget_;
  size_t per_cpu_ = 0;  // pages per CPU
  StreamInfo info_;
  std::vector<std::deque<std::vector<uint8_t>>> cpus_;
};

}  // namespace kpp
