#include "src/stream/unwound_stacks.h"

#include <algorithm>
#include <iterator>

namespace kpp {

UnwoundStacks::UnwoundStacks(std::vector<std::string> sites) : sites_(std::move(sites)) {}

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

void UnwoundStacks::add_loss(int cpu, uint64_t after_ns, uint64_t before_ns) {
  std::lock_guard lock(mutex_);
  losses_.push_back(Loss{cpu, after_ns, before_ns});
}

bool UnwoundStacks::lost_between(int cpu, uint64_t from, uint64_t to) const {
  return std::any_of(losses_.begin(), losses_.end(),
                     [&](const Loss &l) { return l.cpu == cpu && l.after_ns < to && l.before_ns > from; });
}

size_t UnwoundStacks::find(const std::deque<Unwound> &queue, const Event &event, uint64_t since) const {
  // The latest of the site stamped up to the event, and not long before
  // (the queue is by time: a thread's later samples may be many), nor
  // before the thread's previous event.
  auto after = std::upper_bound(queue.begin(), queue.end(), event.time_ns,
                                [](uint64_t t, const Unwound &u) { return t < u.time_ns; });
  for (size_t i = static_cast<size_t>(after - queue.begin()); i-- > 0;) {
    if (queue[i].time_ns + kLateNs < event.time_ns || queue[i].time_ns <= since) break;
    if (is_event(queue[i].site, event)) return i;
  }
  return queue.size();
}

void UnwoundStacks::erase_through(std::deque<Unwound> &queue, size_t at) {
  // Only the samples before `at` move: when events take theirs in order,
  // that is none or a few.
  size_t site = queue[at].site, kept = 0;
  for (size_t i = 0; i < at; ++i) {
    if (queue[i].site == site) {
      ++unmatched_;
      continue;
    }
    if (kept != i) queue[kept] = std::move(queue[i]);
    ++kept;
  }
  queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(kept), queue.begin() + static_cast<std::ptrdiff_t>(at) + 1);
}

std::optional<std::vector<uint64_t>> UnwoundStacks::take(const Event &event, bool last) {
  std::lock_guard lock(mutex_);
  if (!last && event.time_ns + kSettleNs >= read_until_) return std::nullopt;  // its sample may be unread
  taken_until_ = std::max(taken_until_, event.time_ns);
  std::vector<uint64_t> ips;
  uint64_t &since = last_event_[event.pid];
  if (auto it = by_tid_.find(event.pid); it != by_tid_.end()) {
    std::deque<Unwound> &queue = it->second;
    if (size_t at = find(queue, event, since); at < queue.size()) {
      // A loss in between: the sample found may be an earlier hit's (of an event not shown).
      if (!lost_between(event.cpu, queue[at].time_ns, event.time_ns)) ips = std::move(queue[at].ips);
      else ++unmatched_;
      erase_through(queue, at);
    }
    if (queue.empty()) by_tid_.erase(it);
  }
  since = event.time_ns;
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
  // Older than any sample an event may take (kLateNs): no longer a bound.
  std::erase_if(last_event_, [&](const auto &e) { return e.second + kLateNs < taken_until_; });
  std::erase_if(losses_, [&](const Loss &l) { return l.before_ns + kLateNs < taken_until_; });
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
