#include "src/export/export_sink.h"

#include "src/export/metrics_text.h"

namespace kpp {

namespace {
PairOwner open_key(int pair, const Event &event) { return PairOwner{static_cast<size_t>(pair), pair_owner(event)}; }
}  // namespace

ExportSink::ExportSink(const ExportPlan &plan) : hist_args_(plan.hist_args) {
  for (const EventKey &key : plan.events) registry_.declare_event(key);
  for (const ExportPlan::Pair &p : plan.pairs) {
    int index = static_cast<int>(registry_.add_latency_pair(p.entry.group, p.entry.event, p.ret.event));
    roles_[p.entry.group + ":" + p.entry.event].entry_of = index;
    roles_[p.ret.group + ":" + p.ret.event].return_of = index;
  }
}

Status ExportSink::on_start(const StreamInfo &info) {
  std::lock_guard lock(mutex_);
  registry_.declare_cpus(info.cpus);
  return Ok{};
}

Status ExportSink::on_event(const Event &event) {
  std::lock_guard lock(mutex_);
  registry_.add_hit({event.system, event.name});
  id_.assign(event.system).append(":").append(event.name);
  if (auto it = roles_.find(id_); it != roles_.end()) pair_event(event, it->second);
  for (const std::string &arg : hist_args_) {
    const Field *f = event.field(arg);
    if (!f) continue;
    if (f->value.kind == FieldKind::Signed) registry_.add_arg_value({event.system, event.name, arg}, f->value.i);
    else if (f->value.kind == FieldKind::Unsigned || f->value.kind == FieldKind::Hex)
      registry_.add_arg_value({event.system, event.name, arg}, f->value.u);
  }
  return Ok{};
}

// A return is matched with the latest unmatched entry of its owner (its
// thread, a Go probe's goroutine: pair_owner.h), so recursive calls pair inner first.
void ExportSink::pair_event(const Event &event, const Roles &roles) {
  if (roles.entry_of >= 0) {
    if (open_.size() >= kMaxOpenThreads && !open_.count(open_key(roles.entry_of, event))) open_.clear();
    std::vector<uint64_t> &stack = open_[open_key(roles.entry_of, event)];
    if (stack.size() >= kMaxDepth) stack.erase(stack.begin());
    stack.push_back(event.time_ns);
  }
  if (roles.return_of >= 0) {
    auto it = open_.find(open_key(roles.return_of, event));
    size_t pair = static_cast<size_t>(roles.return_of);
    if (it == open_.end()) {
      registry_.add_unmatched(pair);
      return;
    }
    uint64_t start = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) open_.erase(it);
    registry_.add_latency(pair, event.time_ns >= start ? event.time_ns - start : 0);
  }
}

void ExportSink::on_lost(int cpu, int64_t count) {
  std::lock_guard lock(mutex_);
  registry_.add_lost(cpu, count);
}

void ExportSink::set_misses(const EventKey &key, uint64_t misses) {
  std::lock_guard lock(mutex_);
  registry_.set_misses(key, misses);
}

std::string ExportSink::render() const {
  std::lock_guard lock(mutex_);
  return render_metrics(registry_);
}

}  // namespace kpp
