// UnwoundStacks: the user stacks unwound from perf's samples, waiting for
// the tracefs events they belong to (DwarfUserStacks fills it from its
// reader thread, the StackJoin takes from it).
//
// One breakpoint runs both handlers, perf's and then the tracefs event's:
// the kernel runs a uprobe's consumers newest first, and the perf events
// are opened after the session enabled its tracefs events. So a hit's
// sample is stamped before its event: microseconds before, or longer when
// the thread slept in between (the event's fetch-args fault a page in, a
// per-CPU buffer's mutex is taken; 10 ms was seen on a busy machine). A
// thread's hits come one after another, so an event's sample is the
// latest sample of its thread and site stamped up to the event. It is
// told once every sample stamped up to there has been read (read_until),
// not before: the thread's samples are in several per-CPU rings, and one
// read and unwound before another is no sign the other is not coming.
//
// A hit perf did not sample (its ring was full: PERF_RECORD_LOST) leaves
// its event without a stack, never with another hit's: the samples older
// than the one an event takes are of hits the tracefs stream does not
// show (a filter, lost events) and are dropped. Two losses at once -- the
// tracefs event of hit N (lost, or filtered out) and perf's sample of hit
// N+1 -- would leave hit N's sample as the latest before event N+1; so an
// event takes no sample stamped before its thread's previous event (that
// sample is of an earlier hit), nor one with a loss of perf's on the
// event's CPU between it and the event (the lost sample may be the event's
// own: perf's handler and the event's run on one CPU unless the thread
// moved between them). A loss is known once perf writes its
// PERF_RECORD_LOST, with the next sample that fits in the ring: an event
// decided before then (its ring was full when the reader last emptied it)
// is not covered.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "event/event.h"

namespace kpp {

class UnwoundStacks {
 public:
  static constexpr uint64_t kSettleNs = 10'000'000;   // a sample is in its ring this soon after its stamp
  static constexpr uint64_t kLateNs = 1'000'000'000;  // older samples are not the event's
  static constexpr size_t kMaxQueued = 1 << 16;       // per thread

  // `sites`: "group:event" of each sampled site.
  explicit UnwoundStacks(std::vector<std::string> sites);

  // The stack of one hit of `site` by thread `tid` (any thread).
  void add(int tid, uint64_t time_ns, size_t site, std::vector<uint64_t> ips);
  // perf lost samples of hits on `cpu` stamped after `after_ns` and before
  // `before_ns` (any thread), added before read_until passes `before_ns`.
  void add_loss(int cpu, uint64_t after_ns, uint64_t before_ns);
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
  // The index in `queue` of `event`'s sample (size(): none), stamped after `since`.
  size_t find(const std::deque<Unwound> &queue, const Event &event, uint64_t since) const;
  // Whether perf lost a sample on `cpu` stamped between `from` and `to`.
  bool lost_between(int cpu, uint64_t from, uint64_t to) const;
  // Removes `queue[at]` and the samples of its site before it.
  void erase_through(std::deque<Unwound> &queue, size_t at);
  void forget_untaken();

  std::vector<std::string> sites_;
  mutable std::mutex mutex_;
  std::unordered_map<int, std::deque<Unwound>> by_tid_;  // by time
  std::unordered_map<int, uint64_t> last_event_;  // tid -> time of its last event answered
  struct Loss {
    int cpu = 0;
    uint64_t after_ns = 0, before_ns = 0;
  };
  std::vector<Loss> losses_;  // add_loss's, not yet forgotten
  uint64_t read_until_ = 0, taken_until_ = 0;
  uint64_t unmatched_ = 0;
  uint64_t without_stack_ = 0;
};

}  // namespace kpp
