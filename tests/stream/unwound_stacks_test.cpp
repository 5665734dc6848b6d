// UnwoundStacks and the StackJoin's DWARF stacks, without a kernel: each
// event gets the sample of its own hit, whichever handler ran first, and
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

TEST(UnwoundStacks, EveryHitTracedTakesTheThreadsOldestSampleOfTheSite) {
  UnwoundStacks stacks({"grp:a", "grp:b"}, true);
  // The sample of hit 1 was stamped 10 ms after its event (preempted
  // between the handlers), after the event of hit 2 even.
  stacks.add(7, 100 * ms + 10 * ms, 0, {0x1});
  stacks.add(7, 100 * ms + 11 * ms, 0, {0x2});
  stacks.add(8, 100 * ms, 0, {0x8});  // another thread
  stacks.add(7, 100 * ms + 12 * ms, 1, {0xb});
  EXPECT_EQ(stacks.take(hit("a", 7, 100 * ms), false), Ips{0x1});
  EXPECT_EQ(stacks.take(hit("b", 7, 100 * ms + 11 * ms), false), Ips{0xb});
  EXPECT_EQ(stacks.take(hit("a", 7, 100 * ms + 10 * ms + 500), false), Ips{0x2});
  EXPECT_EQ(stacks.take(hit("a", 8, 100 * ms), false), Ips{0x8});
  EXPECT_EQ(stacks.unmatched(), 0u);
}

TEST(UnwoundStacks, NotYetReadIsNotYetTold) {
  UnwoundStacks stacks({"grp:a"}, true);
  EXPECT_EQ(stacks.take(hit("a", 7, 5 * ms), false), std::nullopt);
  stacks.read_until(5 * ms + UnwoundStacks::kLateNs + 1);
  EXPECT_EQ(stacks.take(hit("a", 7, 5 * ms), false), Ips{});  // read past it: none came
  EXPECT_EQ(stacks.take(hit("a", 7, 9 * ms), true), Ips{});   // the last chance: none
}

TEST(UnwoundStacks, WithAFilterTheNearestSampleIsTheHits) {
  UnwoundStacks stacks({"grp:a"}, false);
  // Hits at 10, 10.02 and 10.04 ms; the filter kept only the second.
  stacks.add(7, 10 * ms + 1000, 0, {0x1});
  stacks.add(7, 10 * ms + 20'000 + 1000, 0, {0x2});
  stacks.add(7, 10 * ms + 40'000 + 1000, 0, {0x3});
  Event kept = hit("a", 7, 10 * ms + 20'000);
  EXPECT_EQ(stacks.take(kept, false), std::nullopt);  // a nearer sample may still come
  stacks.read_until(kept.time_ns + UnwoundStacks::kSkewNs + 1);
  EXPECT_EQ(stacks.take(kept, false), Ips{0x2});
}

TEST(UnwoundStacks, SamplesOfLostHitsAreDropped) {
  UnwoundStacks stacks({"grp:a"}, true);
  stacks.add(7, 1 * ms, 0, {0x1});  // its event was lost
  stacks.add(7, 3000 * ms, 0, {0x2});
  EXPECT_EQ(stacks.take(hit("a", 7, 3000 * ms - 5), false), Ips{0x2});
  EXPECT_EQ(stacks.unmatched(), 1u);
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
