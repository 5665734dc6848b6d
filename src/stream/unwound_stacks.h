// UnwoundStacks: the user stacks unwound from perf's samples, waiting for
// the tracefs events they belong to (DwarfUserStacks fills it from its
// reader thread, the StackJoin takes from it).
//
// One breakpoint runs both handlers, the tracefs event's and perf's, in
// either order, microseconds apart, unless the thread is preempted between
// them (10 ms was seen on a busy machine); a thread's hits come one after
// another. So when every hit is traced (no filter), an event's sample is
// the oldest one of its thread and site not taken yet; with a filter, the
// hits it dropped were sampled too, and the sample is the one of the
// thread and site stamped nearest the event (within kSkewNs), decided once
// every sample stamped up to there has been read. Samples far older than
// their thread's event are of hits the tracefs stream lost: dropped.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/stream/event.h"

namespace kpp {

class UnwoundStacks {
 public:
  static constexpr uint64_t kSkewNs = 50'000'000;   // event to sample, at most (with a filter)
  static constexpr uint64_t kLateNs = 1'000'000'000;  // older samples are of lost hits
  static constexpr size_t kMaxQueued = 1 << 16;       // per thread

  // `sites`: "group:event" of each sampled site. `every_hit`: the tracefs
  // stream has every hit of the sites.
  UnwoundStacks(std::vector<std::string> sites, bool every_hit);

  // The stack of one hit of `site` by thread `tid` (any thread).
  void add(int tid, uint64_t time_ns, size_t site, std::vector<uint64_t> ips);
  // Every sample stamped before `time_ns` has been added (any thread).
  void read_until(uint64_t time_ns);
  // `event`'s stack (empty: none), or nullopt while that cannot be told;
  // `last` asks for an answer from what has come.
  std::optional<std::vector<uint64_t>> take(const Event &event, bool last);

  uint64_t unmatched() const;  // samples no event took
  uint64_t without_stack() const;  // events answered with no frames

 private:
  struct Unwound {
    uint64_t time_ns = 0;
    size_t site = 0;
    std::vector<uint64_t> ips;
  };
  bool is_event(size_t site, const Event &event) const;
  // The index in `queue` of `event`'s sample, from `from` on (size(): none).
  size_t find(const std::deque<Unwound> &queue, size_t from, const Event &event, bool decidable) const;
  void forget_untaken();

  std::vector<std::string> sites_;
  bool every_hit_;
  mutable std::mutex mutex_;
  std::unordered_map<int, std::deque<Unwound>> by_tid_;  // by time
  uint64_t read_until_ = 0, taken_until_ = 0;
  uint64_t unmatched_ = 0;
  uint64_t without_stack_ = 0;
};

}  // namespace kpp
