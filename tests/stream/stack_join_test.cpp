// StackJoin without a kernel: stack events put back on their events, in
// the order the events came, whatever the CPUs interleave.
#include <gtest/gtest.h>

#include <vector>

#include "src/stream/stack_join.h"

namespace kpp {
namespace {

struct Collect : EventSink {
  std::vector<Event> events;
  Status on_event(const Event &e) override {
    events.push_back(e);
    return Ok{};
  }
};

Event probe(const std::string &name, int cpu) {
  Event e;
  e.system = "grp";
  e.name = name;
  e.cpu = cpu;
  return e;
}

Event stack(const char *kind, int cpu, std::vector<uint64_t> ips) {
  Event e;
  e.system = kStackSystem;
  e.name = kind;
  e.cpu = cpu;
  Field f;
  f.name = "caller";
  f.value.kind = FieldKind::Array;
  f.value.items = std::move(ips);
  e.fields.push_back(f);
  return e;
}

std::vector<uint64_t> ips(const Event &e) {
  std::vector<uint64_t> out;
  for (const StackFrame &f : e.stack) out.push_back(f.ip);
  return out;
}

TEST(StackJoin, KprobeEventWaitsForItsKernelStackAndPutsItBeforeTheUserStack) {
  Collect sink;
  StackJoin join({StackMode::Expected, {"grp:k"}, true, nullptr, {}, nullptr, 20}, &sink);
  ASSERT_TRUE(join.on_event(probe("k", 1)));
  ASSERT_TRUE(join.on_event(stack(kUserStackEvent, 1, {0x401000, 0x402000, 0, 0})));
  EXPECT_TRUE(sink.events.empty());  // the kernel stack is still to come
  ASSERT_TRUE(join.on_event(stack(kKernelStackEvent, 1, {0xffffffff81000010, 0xffffffff81000020})));
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(ips(sink.events[0]), (std::vector<uint64_t>{0xffffffff81000010, 0xffffffff81000020, 0x401000, 0x402000}));
  EXPECT_FALSE(sink.events[0].stack[1].user);
  EXPECT_TRUE(sink.events[0].stack[2].user);
}

TEST(StackJoin, EventsLeaveInTheOrderTheyCameAcrossCpus) {
  Collect sink;
  StackJoin join({StackMode::Expected, {}, true, nullptr, {}, nullptr, 20}, &sink);
  ASSERT_TRUE(join.on_event(probe("first", 0)));
  ASSERT_TRUE(join.on_event(probe("second", 1)));
  ASSERT_TRUE(join.on_event(stack(kUserStackEvent, 1, {0x2000})));
  EXPECT_TRUE(sink.events.empty());  // "first" still waits
  ASSERT_TRUE(join.on_event(stack(kUserStackEvent, 0, {0x1000, ~uint64_t{0}})));
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_EQ(sink.events[0].name, "first");
  EXPECT_EQ(ips(sink.events[0]), std::vector<uint64_t>{0x1000});  // ~0 ends a user stack
  EXPECT_EQ(ips(sink.events[1]), std::vector<uint64_t>{0x2000});
}

TEST(StackJoin, AnEventWhoseStackNeverComesLeavesAfterOneWholeBatch) {
  Collect sink;
  StackJoin join({StackMode::Expected, {"grp:k"}, false, nullptr, {}, nullptr, 20}, &sink);
  ASSERT_TRUE(join.on_event(probe("k", 0)));
  ASSERT_TRUE(join.on_batch_end());
  EXPECT_TRUE(sink.events.empty());  // its stack may come with the next poll
  ASSERT_TRUE(join.on_batch_end());
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_TRUE(sink.events[0].stack.empty());
  // A stack with no event waiting (a filtered one's) is dropped.
  ASSERT_TRUE(join.on_event(stack(kKernelStackEvent, 0, {0xffffffff81000010})));
  EXPECT_EQ(sink.events.size(), 1u);
}

TEST(StackJoin, ReadBackEveryStackFollowingAnEventOnItsCpuIsItsOwn) {
  Collect sink;
  StackJoin join({StackMode::AsTheyCome, {}, false, nullptr, {}, nullptr, 20}, &sink);
  ASSERT_TRUE(join.on_event(probe("u", 0)));
  ASSERT_TRUE(join.on_event(stack(kUserStackEvent, 0, {0x1000})));
  ASSERT_TRUE(join.on_event(probe("u", 0)));  // the next event on cpu0 releases the first
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(ips(sink.events[0]), std::vector<uint64_t>{0x1000});
  ASSERT_TRUE(join.on_finish());
  ASSERT_EQ(sink.events.size(), 2u);
  EXPECT_TRUE(sink.events[1].stack.empty());
}

TEST(StackJoin, OffPassesEverythingOnAtOnce) {
  Collect sink;
  StackJoin join({}, &sink);
  ASSERT_TRUE(join.on_event(probe("k", 0)));
  EXPECT_EQ(sink.events.size(), 1u);
}

struct Naming : FrameSymbolizer {
  void symbolize(const Event &, std::vector<StackFrame> &frames) override {
    for (StackFrame &f : frames) f.sym = "fn_" + std::to_string(f.ip);
  }
};

TEST(StackJoin, TheSymbolizerNamesTheFramesBeforeTheyLeave) {
  Collect sink;
  Naming naming;
  StackJoin join({StackMode::Expected, {}, true, &naming, {}, nullptr, 20}, &sink);
  ASSERT_TRUE(join.on_event(probe("u", 0)));
  ASSERT_TRUE(join.on_event(stack(kUserStackEvent, 0, {7})));
  ASSERT_EQ(sink.events.size(), 1u);
  EXPECT_EQ(sink.events[0].stack.at(0).sym, "fn_7");
}

}  // namespace
}  // namespace kpp
