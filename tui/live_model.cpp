#include "tui/live_model.h"

#include <algorithm>

namespace kpp::tui {

const char *status_name(ProbeStatus status) {
  switch (status) {
    case ProbeStatus::Enabled: return "enabled";
    case ProbeStatus::Disabled: return "disabled";
    case ProbeStatus::Gone: return "[GONE]";
    case ProbeStatus::Optimized: return "[OPTIMIZED]";
    case ProbeStatus::Ftrace: return "[FTRACE]";
  }
  return "?";
}

const char *sort_name(SortKey key) {
  switch (key) {
    case SortKey::Hits: return "hits";
    case SortKey::Rate: return "rate";
    case SortKey::Name: return "name";
  }
  return "?";
}

LiveModel::LiveModel(LiveModelOptions options) : options_(options), log_(options.log_capacity) {}

size_t LiveModel::add_probe(ProbeInfo info) {
  std::string id = info.group + ":" + info.event;
  if (int existing = find(id); existing >= 0) return static_cast<size_t>(existing);
  ProbeRow row;
  row.info = std::move(info);
  row.id = std::move(id);
  probes_.push_back(std::move(row));
  pair_with_earlier(probes_.size() - 1);
  return probes_.size() - 1;
}

// The label of a pair is the function: the entry's place up to its first
// ':', '+', '%' or '@' ("add@prog.c" -> "add"), else the entry's event name.
void LiveModel::pair_with_earlier(size_t index) {
  ProbeRow &row = probes_[index];
  if (row.info.site.empty()) return;
  for (size_t i = 0; i < index; ++i) {
    ProbeRow &other = probes_[i];
    if (other.info.site != row.info.site || other.info.is_return == row.info.is_return) continue;
    if ((other.info.is_return ? other.pair_return : other.pair_entry) >= 0) continue;
    ProbeRow &entry = row.info.is_return ? other : row;
    ProbeRow &ret = row.info.is_return ? row : other;
    std::string label = entry.info.where.substr(0, entry.info.where.find_first_of(":+%@"));
    if (label.empty()) label = entry.info.event;
    int p = static_cast<int>(pairs_.add_pair(label, row.info.is_return ? i : index, row.info.is_return ? index : i));
    entry.pair_entry = p;
    ret.pair_return = p;
    return;
  }
}

void LiveModel::set_status(const std::string &id, ProbeStatus status) {
  if (int i = find(id); i >= 0) probes_[static_cast<size_t>(i)].status = status;
}

void LiveModel::set_missed(const std::string &id, uint64_t missed) {
  if (int i = find(id); i >= 0) {
    probes_[static_cast<size_t>(i)].has_missed = true;
    probes_[static_cast<size_t>(i)].missed = missed;
  }
}

int LiveModel::find(const std::string &id) const {
  for (size_t i = 0; i < probes_.size(); ++i)
    if (probes_[i].id == id) return static_cast<int>(i);
  return -1;
}

// A linear scan, tried first at the previous event's row: a handful of
// probes, and no string built per event.
size_t LiveModel::row_for(const Event &e) {
  auto is = [&](const ProbeRow &r) { return r.info.event == e.name && r.info.group == e.system; };
  if (last_row_ < probes_.size() && is(probes_[last_row_])) return last_row_;
  for (size_t i = 0; i < probes_.size(); ++i)
    if (is(probes_[i])) return last_row_ = i;
  return last_row_ = add_probe(ProbeInfo{e.system, e.name, "", "", false});
}

void LiveModel::on_event(const Event &e) {
  ++events_;
  ProbeRow &row = probes_[row_for(e)];
  ++row.hits;
  log_.push(e);
  if (row.pair_entry >= 0) pairs_.on_entry(static_cast<size_t>(row.pair_entry), pair_owner(e), e.time_ns);
  if (row.pair_return >= 0) pairs_.on_return(static_cast<size_t>(row.pair_return), pair_owner(e), e.time_ns);
  for (size_t f = 0; f < e.fields.size(); ++f) {
    if (f >= row.args.size() || row.args[f].name != e.fields[f].name) {
      // A probe's fields do not change; a mismatch means a redefined event.
      row.args.resize(f);
      row.args.push_back(ArgStats{e.fields[f].name, {}});
    }
    row.args[f].summary.add(e.fields[f].value);
  }
  if (!e.stack.empty()) row.stacks.add(e.stack);
}

void LiveModel::on_lost(int, int64_t count) {
  if (count < 0) lost_unknown_ = true;
  else lost_ += static_cast<uint64_t>(count);
}

void LiveModel::tick(uint64_t now_ns) {
  if (ticks_++ == 0 || now_ns <= last_tick_ns_) {
    last_tick_ns_ = now_ns;
    events_at_tick_ = events_;
    for (ProbeRow &r : probes_) r.hits_at_tick = r.hits;
    return;
  }
  double dt = static_cast<double>(now_ns - last_tick_ns_) / 1e9;
  last_tick_ns_ = now_ns;
  events_rate_ = static_cast<double>(events_ - events_at_tick_) / dt;
  events_at_tick_ = events_;
  for (ProbeRow &r : probes_) {
    r.rate = static_cast<double>(r.hits - r.hits_at_tick) / dt;
    r.hits_at_tick = r.hits;
    r.history.push_back(r.rate);
    while (r.history.size() > options_.history_length) r.history.pop_front();
  }
}

std::vector<size_t> LiveModel::sorted(SortKey key) const {
  std::vector<size_t> order(probes_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const ProbeRow &x = probes_[a], &y = probes_[b];
    if (key == SortKey::Hits && x.hits != y.hits) return x.hits > y.hits;
    if (key == SortKey::Rate && x.rate != y.rate) return x.rate > y.rate;
    return x.id < y.id;
  });
  return order;
}

}  // namespace kpp::tui
