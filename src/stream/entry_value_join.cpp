#include "src/stream/entry_value_join.h"

#include "util/companion_mark.h"


namespace kpp {

EntryValueJoin::EntryValueJoin(Companions companions, std::vector<EventSink *> downstream)
    : companions_(std::move(companions)), downstream_(std::move(downstream)) {}

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
  ++forwarded_;
  for (EventSink *s : downstream_)
    if (s->wants_events())
      if (Status st = s->on_event(event); !st) return st;
  return Ok{};
}

Status EntryValueJoin::on_event(const Event &event) {
  if (companions_.empty()) return forward(event);  // the common case: no companions at all
  key_.assign(event.system).append(1, ':').append(event.name);
  switch (companions_.role_of(key_)) {
    case CompanionRole::Entry:
      // The planner's companions carry a mark as their first field
      // (util/companion_mark.h): not a value, so not joined.
      if (!event.fields.empty() && is_companion_mark(event.fields.front().name))
        live_[{event.pid, companions_.owner_of(key_)}].emplace_back(event.fields.begin() + 1, event.fields.end());
      else
        live_[{event.pid, companions_.owner_of(key_)}].push_back(event.fields);
      return Ok{};
    case CompanionRole::Exit: {
      auto it = live_.find({event.pid, companions_.owner_of(key_)});
      if (it != live_.end()) {
        it->second.pop_back();
        if (it->second.empty()) live_.erase(it);
      }
      return Ok{};
    }
    case CompanionRole::None: break;
  }
  auto it = live_.find({event.pid, key_});
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

Status EntryValueJoin::on_batch_end() {
  for (EventSink *s : downstream_)
    if (Status st = s->on_batch_end(); !st) return st;
  return Ok{};
}

Status EntryValueJoin::on_finish() {
  Status result = Ok{};
  for (EventSink *s : downstream_)
    if (Status st = s->on_finish(); !st && result) result = st;
  return result;
}

}  // namespace kpp
