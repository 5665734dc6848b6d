#include "src/stream/entry_value_join.h"

#include <string_view>

#include "src/util/companion_mark.h"

namespace kpp {

namespace {
// A companion is known by its mark, its first field (src/util/companion_mark.h),
// not by its name alone: a user's own "my__entry" is an ordinary event.
CompanionMark role_of(const Event &event) {
  return companion_mark_of(event.name, event.fields.empty() ? std::string_view() : event.fields.front().name);
}
}  // namespace

EntryValueJoin::EntryValueJoin(std::vector<EventSink *> downstream) : downstream_(std::move(downstream)) {}

Status EntryValueJoin::on_start(const StreamInfo &info) {
  for (EventSink *s : downstream_)
    if (Status st = s->on_start(info); !st) return st;
  return Ok{};
}

bool EntryValueJoin::wants_events() const {
  for (const EventSink *s : downstream_)
    if (s->wants_events()) return true;
  return false;
}

bool EntryValueJoin::wants_pages() const {
  for (const EventSink *s : downstream_)
    if (s->wants_pages()) return true;
  return false;
}

Status EntryValueJoin::on_page(int cpu, std::span<const uint8_t> page) {
  for (EventSink *s : downstream_)
    if (s->wants_pages())
      if (Status st = s->on_page(cpu, page); !st) return st;
  return Ok{};
}

Status EntryValueJoin::forward(const Event &event) {
  for (EventSink *s : downstream_)
    if (s->wants_events())
      if (Status st = s->on_event(event); !st) return st;
  return Ok{};
}

Status EntryValueJoin::on_event(const Event &event) {
  CompanionMark role = role_of(event);
  if (role == CompanionMark::Entry) {
    std::string base = event.system + ":" + marked_companion_owner(event.name, role);
    live_[{event.pid, base}].emplace_back(event.fields.begin() + 1, event.fields.end());  // the mark left out
    return Ok{};
  }
  if (role == CompanionMark::Exit) {
    std::string base = event.system + ":" + marked_companion_owner(event.name, role);
    auto it = live_.find({event.pid, base});
    if (it != live_.end()) {
      it->second.pop_back();
      if (it->second.empty()) live_.erase(it);
    }
    return Ok{};
  }
  if (live_.empty()) return forward(event);  // the common case: no companions at all
  auto it = live_.find({event.pid, event.system + ":" + event.name});
  if (it == live_.end()) return forward(event);
  joined_ = event;
  const std::vector<Field> &entry_fields = it->second.back();
  joined_.fields.insert(joined_.fields.end(), entry_fields.begin(), entry_fields.end());
  return forward(joined_);
}

void EntryValueJoin::on_lost(int cpu, int64_t count) {
  // An entry or exit may be among the lost: what is joined after this could
  // belong to another call, so start over.
  live_.clear();
  for (EventSink *s : downstream_) s->on_lost(cpu, count);
}

Status EntryValueJoin::on_finish() {
  Status result = Ok{};
  for (EventSink *s : downstream_)
    if (Status st = s->on_finish(); !st && result) result = st;
  return result;
}

}  // namespace kpp
