// UnwoundStacks and the StackJoin's DWARF stacks, without a kernel: each
// event gets the sample of its own hit or none, never another hit's, and
// waits while that cannot be told yet.
#include <gtest/gtest.h>

#include <vector>

#include "src/stream/stack_join.h"
#include "src/stream/unwound_stacks.h"

namespace kpp {
namespace {

Event hit(const std::string &name, int tid, uint64_t time_ns) {
  Event e;
  e.system = "grp";
  e.name = name;
  e.pid = tid;
  e.time_ns = time_ns;
  return e;
}

using Ips = std::vector<uint64_t>;
constexpr uint64_t ms = 1'000'000;

// Hits are told once every sample stamped up to them is in.
void all_read_past(UnwoundStacks &stacks, uint64_t time_ns) {
  stacks.read_until(time_ns + UnwoundStacks::kSettleNs + 1);
}

TEST(UnwoundStacks, AnEventTakesTheLatestSampleOfItsThreadAndSiteBeforeIt) {
  UnwoundStacks stacks({"grp:a", "grp:b"});
  // perf's handler runs first: each sample is stamped before its event,
  // hit 1's 10 ms before (the thread slept between the handlers).
  stacks.add(7, 90 * ms, 0, {0x1});
  stacks.add(7, 100 * ms + 20'000, 0, {0x2});
  stacks.add(8, 100 * ms - 5'000, 0, {0x8});  // another thread
  stacks.add(7, 100 * ms + 40'000, 1, {0xb});  // another site
  all_read_past(stacks, 101 * ms);
  EXPECT_EQ(stacks.take(hit("a", 7, 100 * ms), false), Ips{0x1});
  EXPECT_EQ(stacks.take(hit("a", 7, 100 * ms + 30'000), false), Ips{0x2});
  EXPECT_EQ(stacks.take(hit("b", 7, 100 * ms + 50'000), false), Ips{0xb});
  EXPECT_EQ(stacks.take(hit("a", 8, 100 * ms), false), Ips{0x8});
  EXPECT_EQ(stacks.unmatched(), 0u);
  EXPECT_EQ(stacks.without_stack(), 0u);
}

TEST(UnwoundStacks, NotYetReadIsNotYetTold) {
  UnwoundStacks stacks({"grp:a"});
  // A later hit's sample, read first (its CPU's ring was read before the
  // ring that has this hit's): the event waits for its own.
  stacks.add(7, 6 * ms, 0, {0x2});
  EXPECT_EQ(stacks.take(hit("a", 7, 5 * ms), false), std::nullopt);
  stacks.add(7, 5 * ms - 1000, 0, {0x1});
  all_read_past(stacks, 7 * ms);
  EXPECT_EQ(stacks.take(hit("a", 7, 5 * ms), false), Ips{0x1});
  EXPECT_EQ(stacks.take(hit("a", 7, 6 * ms + 1000), false), Ips{0x2});
  EXPECT_EQ(stacks.take(hit("a", 7, 9 * ms), true), Ips{});  // the last chance: none
  EXPECT_EQ(stacks.without_stack(), 1u);
}

TEST(UnwoundStacks, AHitPerfLostLeavesItsEventWithoutAStackNotWithAnothers) {
  UnwoundStacks stacks({"grp:a"});
  stacks.add(7, 1 * ms, 0, {0x1});
  // hit 2's sample was lost (PERF_RECORD_LOST)
  stacks.add(7, 3 * ms, 0, {0x3});
  all_read_past(stacks, 4 * ms);
  EXPECT_EQ(stacks.take(hit("a", 7, 1 * ms + 100), false), Ips{0x1});
  EXPECT_EQ(stacks.take(hit("a", 7, 2 * ms + 100), false), Ips{});
  EXPECT_EQ(stacks.take(hit("a", 7, 3 * ms + 100), false), Ips{0x3});
}

TEST(UnwoundStacks, SamplesOfHitsTheStreamDoesNotShowAreDropped) {
  UnwoundStacks stacks({"grp:a"});
  // Hits at 10, 10.02 and 10.04 ms; a filter kept only the second.
  stacks.add(7, 10 * ms, 0, {0x1});
  stacks.add(7, 10 * ms + 20'000, 0, {0x2});
  stacks.add(7, 10 * ms + 40'000, 0, {0x3});
  stacks.add(7, 1 * ms, 0, {0x9});  // long before: a hit the stream lost
  all_read_past(stacks, 11 * ms);
  EXPECT_EQ(stacks.take(hit("a", 7, 10 * ms + 20'500), false), Ips{0x2});
  EXPECT_EQ(stacks.unmatched(), 2u);  // 0x9 and 0x1: before the one taken
  // A later event whose sample was lost does not take 0x1 or 0x9.
  EXPECT_EQ(stacks.take(hit("a", 7, 10 * ms + 30'000), false), Ips{});
}

TEST(UnwoundStacks, TwoLossesAtOnceLeaveTheEventWithoutAStackNotWithTheLostEventsOne) {
  UnwoundStacks stacks({"grp:a"});
  // Hits 1, 2, 3 of one thread: tracefs lost hit 2's event, perf lost hit
  // 3's sample (its ring full after hit 2's: PERF_RECORD_LOST, then hit
  // 4's sample).
  stacks.add(7, 1 * ms, 0, {0x1});
  stacks.add(7, 2 * ms, 0, {0x2});
  stacks.add_loss(0, 2 * ms, 4 * ms);
  stacks.add(7, 4 * ms, 0, {0x4});
  all_read_past(stacks, 5 * ms);
  EXPECT_EQ(stacks.take(hit("a", 7, 1 * ms + 100), false), Ips{0x1});
  EXPECT_EQ(stacks.take(hit("a", 7, 3 * ms + 100), false), Ips{});  // not hit 2's 0x2
  EXPECT_EQ(stacks.take(hit("a", 7, 4 * ms + 100), false), Ips{0x4});
  EXPECT_EQ(stacks.without_stack(), 1u);
}

TEST(UnwoundStacks, NoSampleFromBeforeTheThreadsPreviousEvent) {
  UnwoundStacks stacks({"grp:a", "grp:b"});
  // b (event lost), a (shown), b (sample lost, no loss told for it): the
  // second b's event must not take the first b's sample, stamped before a's event.
  stacks.add(7, 1 * ms, 1, {0xb1});
  stacks.add(7, 2 * ms, 0, {0xa});
  all_read_past(stacks, 4 * ms);
  EXPECT_EQ(stacks.take(hit("a", 7, 2 * ms + 100), false), Ips{0xa});
  EXPECT_EQ(stacks.take(hit("b", 7, 3 * ms + 100), false), Ips{});
  // A loss long before the sample, after the event, or on another CPU does not matter.
  stacks.add_loss(0, 0, 5 * ms);
  stacks.add(7, 6 * ms, 1, {0xb3});
  stacks.add_loss(0, 7 * ms, 9 * ms);
  stacks.add_loss(1, 5 * ms, 9 * ms);
  all_read_past(stacks, 9 * ms);
  EXPECT_EQ(stacks.take(hit("b", 7, 6 * ms + 100), false), Ips{0xb3});
}

struct Collect : EventSink {
  std::vector<Event> events;
  Status on_event(const Event &e) override {
    events.push_back(e);
    return Ok{};
  }
};

// Answers "not yet" until `ready`, then its frames.
struct Source : UserStackSource {
  bool ready = false;
  int asked_last = 0;
  std::optional<std::vector<uint64_t>> take(const Event &, bool last) override {
    asked_last += last;
    if (!ready && !last) return std::nullopt;
    return ready ? Ips{0x401000, 0x402000} : Ips{};
  }
};

// A join that takes grp:a's user stacks from `source`.
StackJoinOptions dwarf_for_a(Source &source) {
  StackJoinOptions o;
  o.mode = StackMode::Expected;
  o.dwarf_stack_events = {"grp:a"};
  o.dwarf = &source;
  return o;
}

TEST(StackJoinDwarf, AnEventWaitsForItsDwarfStackAcrossBatches) {
  Collect sink;
  Source source;
  StackJoin join(dwarf_for_a(source), &sink);
  ASSERT_TRUE(join.on_event(hit("a", 7, 1)));
  ASSERT_TRUE(join.on_batch_end());
  ASSERT_TRUE(join.on_batch_end());
  EXPECT_TRUE(sink.events.empty());  // a frame-pointer stack would have gone by now
  source.ready = true;
  ASSERT_TRUE(join.on_batch_end());
  ASSERT_EQ(sink.events.size(), 1u);
  ASSERT_EQ(sink.events[0].stack.size(), 2u);
  EXPECT_EQ(sink.events[0].stack[1].ip, 0x402000u);
  EXPECT_TRUE(sink.events[0].stack[0].user);
}

// Records the order the events were answered in.
struct OrderSource : UserStackSource {
  bool ready = false;
  std::vector<uint64_t> answered;  // event times
  std::optional<std::vector<uint64_t>> take(const Event &e, bool last) override {
    if (!ready && !last) return std::nullopt;
    answered.push_back(e.time_ns);
    return Ips{0x401000};
  }
};

TEST(StackJoinDwarf, StacksAreTakenInTheEventsOrder) {
  Collect sink;
  OrderSource source;
  StackJoinOptions o;
  o.mode = StackMode::Expected;
  o.dwarf_stack_events = {"grp:a"};
  o.dwarf = &source;
  StackJoin join(o, &sink);
  ASSERT_TRUE(join.on_event(hit("a", 7, 1)));  // not told yet
  source.ready = true;
  ASSERT_TRUE(join.on_event(hit("a", 7, 2)));  // waits behind the first
  EXPECT_TRUE(source.answered.empty());
  ASSERT_TRUE(join.on_batch_end());
  EXPECT_EQ(source.answered, (std::vector<uint64_t>{1, 2}));
  ASSERT_TRUE(join.on_event(hit("a", 7, 3)));  // none waits: told at once
  EXPECT_EQ(source.answered.size(), 3u);
  ASSERT_TRUE(join.on_finish());
  EXPECT_EQ(sink.events.size(), 3u);
}

TEST(StackJoinDwarf, AtTheEndAnEventGoesWithWhatCame) {
  Collect sink;
  Source source;
  StackJoin join(dwarf_for_a(source), &sink);
  ASSERT_TRUE(join.on_event(hit("a", 7, 1)));
  ASSERT_TRUE(join.on_event(hit("other", 7, 2)));  // no stack wanted: waits behind it
  EXPECT_TRUE(sink.events.empty());
  ASSERT_TRUE(join.on_finish());
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_TRUE(sink.events[0].stack.empty());
  EXPECT_EQ(source.asked_last, 1);
}

}  // namespace
}  // namespace kpp
