#include "src/stream/unwound_stacks.h"

#include <algorithm>
#include <iterator>

namespace kpp {

UnwoundStacks::UnwoundStacks(std::vector<std::string> sites, bool every_hit)
    : sites_(std::move(sites)), every_hit_(every_hit) {}

void UnwoundStacks::add(int tid, uint64_t time_ns, size_t site, std::vector<uint64_t> ips) {
  std::lock_guard lock(mutex_);
  auto &queue = by_tid_[tid];
  if (queue.size() >= kMaxQueued) {
    queue.pop_front();
    ++unmatched_;
  }
  // By time: a thread that moved to another CPU has its samples in two rings.
  auto at = queue.end();
  while (at != queue.begin() && std::prev(at)->time_ns > time_ns) --at;
  queue.insert(at, Unwound{time_ns, site, std::move(ips)});
}

void UnwoundStacks::read_until(uint64_t time_ns) {
  std::lock_guard lock(mutex_);
  read_until_ = std::max(read_until_, time_ns);
  forget_untaken();
}

bool UnwoundStacks::is_event(size_t site, const Event &event) const {
  if (site >= sites_.size()) return false;
  const std::string &name = sites_[site];
  return name.size() == event.system.size() + 1 + event.name.size() &&
         name.compare(0, event.system.size(), event.system) == 0 &&
         name.compare(event.system.size() + 1, std::string::npos, event.name) == 0;
}

size_t UnwoundStacks::find(const std::deque<Unwound> &queue, size_t from, const Event &event, bool decidable) const {
  size_t best = queue.size();
  if (every_hit_) {
    for (size_t i = from; i < queue.size() && queue[i].time_ns <= event.time_ns + kLateNs; ++i)
      if (is_event(queue[i].site, event)) return i;
    return best;
  }
  if (!decidable) return best;
  uint64_t best_gap = kSkewNs + 1;
  for (size_t i = from; i < queue.size() && queue[i].time_ns <= event.time_ns + kSkewNs; ++i) {
    uint64_t t = queue[i].time_ns, gap = t > event.time_ns ? t - event.time_ns : event.time_ns - t;
    if (gap < best_gap && is_event(queue[i].site, event)) {
      best = i;
      best_gap = gap;
    }
  }
  return best;
}

std::optional<std::vector<uint64_t>> UnwoundStacks::take(const Event &event, bool last) {
  std::lock_guard lock(mutex_);
  taken_until_ = std::max(taken_until_, event.time_ns);
  bool decidable = last || event.time_ns + (every_hit_ ? kLateNs : kSkewNs) < read_until_;
  auto it = by_tid_.find(event.pid);
  if (it == by_tid_.end()) {
    if (!decidable) return std::nullopt;
    ++without_stack_;
    return std::vector<uint64_t>{};
  }
  std::deque<Unwound> &queue = it->second;
  size_t stale = 0;
  while (stale < queue.size() && queue[stale].time_ns + kLateNs < event.time_ns) ++stale;
  size_t best = find(queue, stale, event, decidable);
  if (best == queue.size() && !decidable) return std::nullopt;
  std::vector<uint64_t> ips;
  if (best < queue.size()) {
    ips = std::move(queue[best].ips);
    queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(best));
  }
  unmatched_ += stale;
  queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(stale));
  if (queue.empty()) by_tid_.erase(it);
  if (ips.empty()) ++without_stack_;  // no sample matched, or it did not unwind
  return ips;
}

void UnwoundStacks::forget_untaken() {
  // Threads whose hits the stream never shows (filtered out): their samples
  // go once the stream is well past them.
  if (taken_until_ < kLateNs) return;
  for (auto it = by_tid_.begin(); it != by_tid_.end();) {
    std::deque<Unwound> &queue = it->second;
    while (!queue.empty() && queue.front().time_ns + kLateNs < taken_until_) {
      queue.pop_front();
      ++unmatched_;
    }
    it = queue.empty() ? by_tid_.erase(it) : std::next(it);
  }
}

uint64_t UnwoundStacks::unmatched() const {
  std::lock_guard lock(mutex_);
  return unmatched_;
}

uint64_t UnwoundStacks::without_stack() const {
  std::lock_guard lock(mutex_);
  return without_stack_;
}

}  // namespace kpp
