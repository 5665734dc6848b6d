// EventLog: the latest events, kept as copies in a ring, formatted only
// when shown (at 100k events/s most are overwritten unseen). Pausing
// freezes the log while counting what went by; the text filter selects
// the lines whose formatted text contains it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "event/event.h"

namespace kpp::tui {

class EventLog {
 public:
  explicit EventLog(size_t capacity = 2000);

  void push(const Event &event);

  void set_paused(bool paused) { paused_ = paused; }
  bool paused() const { return paused_; }
  // Events not kept because the log was paused.
  uint64_t skipped() const { return skipped_; }

  void set_filter(std::string filter) { filter_ = std::move(filter); }
  const std::string &filter() const { return filter_; }

  // Events kept, oldest first: at(0) is the oldest.
  size_t size() const { return count_; }
  const Event &at(size_t i) const { return slots_[slot(i)].event; }
  // The log line of at(i): "time [cpu] comm-pid group:event name=value ...".
  const std::string &text(size_t i) const;
  // Indexes (oldest first) of the kept events that match the filter.
  std::vector<size_t> visible() const;

 private:
  struct Slot {
    Event event;
    mutable std::string text;  // formatted on first use
    mutable bool formatted = false;
  };
  size_t slot(size_t i) const { return (head_ + i) % slots_.size(); }

  std::vector<Slot> slots_;
  size_t head_ = 0, count_ = 0;
  bool paused_ = false;
  uint64_t skipped_ = 0;
  std::string filter_;
};

}  // namespace kpp::tui
