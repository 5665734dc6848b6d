#include "tui/event_log.h"

#include "event/text_format.h"
#include "tui/frame.h"

namespace kpp::tui {

EventLog::EventLog(size_t capacity) : slots_(capacity ? capacity : 1) {}

void EventLog::push(const Event &event) {
  if (paused_) {
    ++skipped_;
    return;
  }
  size_t at;
  if (count_ < slots_.size()) {
    at = slot(count_++);
  } else {
    at = head_;
    head_ = (head_ + 1) % slots_.size();
  }
  Slot &s = slots_[at];
  s.event = event;  // assignment reuses the slot's string and vector storage
  s.formatted = false;
}

const std::string &EventLog::text(size_t i) const {
  const Slot &s = slots_[slot(i)];
  if (!s.formatted) {
    s.text = printable(format_event_text(s.event));
    s.formatted = true;
  }
  return s.text;
}

std::vector<size_t> EventLog::visible() const {
  std::vector<size_t> out;
  out.reserve(count_);
  for (size_t i = 0; i < count_; ++i)
    if (filter_.empty() || text(i).find(filter_) != std::string::npos) out.push_back(i);
  return out;
}

}  // namespace kpp::tui
