// Companions (src/stream/companions.h), the one recogniser, and the sink
// chain that joins them: a set the builder writes is recognised from the
// definitions' shape and marks, and nothing else is, whatever its name.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "src/stream/companions.h"
#include "src/stream/sink_chain.h"
#include "src/stream/instance_triggers.h"
#include "src/stream/stale_instances.h"
#include "src/stream/trace_instance.h"
#include "util/companion_mark.h"
#include "tests/common/test_events.h"

namespace kpp {
namespace {

ProbeShape uprobe(const std::string &event, uint64_t offset, bool is_return = false,
                  const std::string &path = "/bin/prog", std::string_view first_field = "x") {
  char site[64];
  std::snprintf(site, sizeof site, ":0x%llx", static_cast<unsigned long long>(offset));
  return ProbeShape{"probe_prog", event, is_return, path, path + site, std::string(first_field)};
}

// The builder's companions: marked by their first field.
ProbeShape entry_companion(const std::string &event, uint64_t offset, const std::string &path = "/bin/prog") {
  return uprobe(event, offset, false, path, companion_entry_mark);
}
ProbeShape exit_companion(const std::string &event, uint64_t offset, const std::string &path = "/bin/prog") {
  return uprobe(event, offset, true, path, companion_exit_mark);
}

// What the builder writes for "walk:5 s" when s needs an entry value.
std::vector<ProbeShape> builder_set() {
  return {uprobe("walk_L5", 0x1180), entry_companion("walk_L5__entry", 0x1140), exit_companion("walk_L5__exit", 0x1140)};
}

TEST(Companions, TheBuildersSetIsRecognised) {
  Companions c = Companions::recognise(builder_set());
  EXPECT_EQ(c.role_of("probe_prog:walk_L5__entry"), CompanionRole::Entry);
  EXPECT_EQ(c.role_of("probe_prog:walk_L5__exit"), CompanionRole::Exit);
  EXPECT_EQ(c.owner_of("probe_prog:walk_L5__entry"), "probe_prog:walk_L5");
  EXPECT_EQ(c.role_of("probe_prog:walk_L5"), CompanionRole::None);
  EXPECT_EQ(c.of("probe_prog:walk_L5"),
            (std::vector<std::string>{"probe_prog:walk_L5__entry", "probe_prog:walk_L5__exit"}));
}

TEST(Companions, AUsersOwnEntryNameIsAnOrdinaryEvent) {
  // "my__entry" with an event "my" but no exit companion.
  Companions alone = Companions::recognise({uprobe("my", 0x1180), entry_companion("my__entry", 0x1140)});
  EXPECT_EQ(alone.role_of("probe_prog:my__entry"), CompanionRole::None);
  // The whole set by name and shape, but not marked: a user's own events.
  Companions unmarked = Companions::recognise({uprobe("f", 0x1180), uprobe("f__entry", 0x1140),
                                               uprobe("f__exit", 0x1140, true)});
  EXPECT_TRUE(unmarked.empty());
  // Marks swapped: the exit's mark on the entry.
  Companions swapped = Companions::recognise({uprobe("f", 0x1180), uprobe("f__entry", 0x1140, false, "/bin/prog", companion_exit_mark),
                                              uprobe("f__exit", 0x1140, true, "/bin/prog", companion_entry_mark)});
  EXPECT_TRUE(swapped.empty());
  // perf's SDT pair: function__entry / function__return, no owner "function".
  Companions sdt = Companions::recognise({uprobe("function__entry", 0x2000), uprobe("function__return", 0x2100)});
  EXPECT_TRUE(sdt.empty());
  // An exit that is not a return probe, or not on the entry's site.
  Companions not_return = Companions::recognise({uprobe("f", 0x1180), entry_companion("f__entry", 0x1140),
                                                 uprobe("f__exit", 0x1140, false, "/bin/prog", companion_exit_mark)});
  EXPECT_TRUE(not_return.empty());
  Companions elsewhere = Companions::recognise({uprobe("f", 0x1180), entry_companion("f__entry", 0x1140),
                                                exit_companion("f__exit", 0x1300)});
  EXPECT_TRUE(elsewhere.empty());
  // The owner in another binary.
  Companions other_binary = Companions::recognise({uprobe("f", 0x1180, false, "/bin/other"),
                                                   entry_companion("f__entry", 0x1140), exit_companion("f__exit", 0x1140)});
  EXPECT_TRUE(other_binary.empty());
}

TEST(Companions, FormatsWithoutSitesStillNeedTheWholeSet) {
  std::vector<ProbeShape> shapes = builder_set();
  for (ProbeShape &s : shapes) s.site.clear(), s.binary.clear();
  EXPECT_EQ(Companions::recognise(shapes).role_of("probe_prog:walk_L5__entry"), CompanionRole::Entry);
  shapes.pop_back();  // no exit
  EXPECT_TRUE(Companions::recognise(shapes).empty());
}

struct Collect : EventSink {
  std::vector<Event> events;
  Status on_event(const Event &e) override {
    events.push_back(e);
    return Ok{};
  }
};

Event event(const std::string &name, int pid, std::vector<Field> fields = {}) {
  Event e = test_events::test_event("probe_prog", name, pid);
  e.fields = std::move(fields);
  return e;
}

Field field(const std::string &name, int64_t v) { return test_events::signed_field(name, v); }

TEST(SinkChain, JoinsEntryValuesAndDropsOwnEvents) {
  Collect out;
  SinkChain chain(SinkChainOptions{Companions::recognise(builder_set()), 4242, {}}, {&out});
  ASSERT_TRUE(chain.on_start(StreamInfo{}));
  ASSERT_TRUE(chain.on_event(event("walk_L5__entry", 7, {field("s", 3)})));
  ASSERT_TRUE(chain.on_event(event("walk_L5", 7, {field("i", 1)})));
  ASSERT_TRUE(chain.on_event(event("walk_L5", 4242, {field("i", 9)})));  // our own pid
  ASSERT_TRUE(chain.on_event(event("walk_L5__exit", 7)));
  ASSERT_TRUE(chain.on_event(event("walk_L5", 7, {field("i", 2)})));  // after the return: nothing to join
  ASSERT_EQ(out.events.size(), 2u);
  EXPECT_EQ(out.events[0].fields, (std::vector<Field>{field("i", 1), field("s", 3)}));
  EXPECT_EQ(out.events[1].fields, (std::vector<Field>{field("i", 2)}));
}

TEST(SinkChain, RecognisesFromTheStreamsFormatsWhenNotTold) {
  Collect out;
  SinkChain chain(SinkChainOptions{}, {&out});
  StreamInfo info;
  info.probes = {ProbeShape{"g", "my", false, "", "", "x"}, ProbeShape{"g", "my__entry", false, "", "", "x"}};
  ASSERT_TRUE(chain.on_start(info));
  ASSERT_TRUE(chain.on_event(event("my__entry", 7, {field("x", 1)})));
  ASSERT_EQ(out.events.size(), 1u);  // printed: "my__entry" is no companion here
  EXPECT_EQ(out.events[0].name, "my__entry");
}

TEST(StaleInstances, OnlyOurNamePatternRecordsAPid) {
  EXPECT_EQ(instance_owner_pid("kprobe-probe-1234"), 1234);
  EXPECT_EQ(instance_owner_pid("kprobe-probe-"), 0);
  EXPECT_EQ(instance_owner_pid("kprobe-probe-12a"), 0);
  EXPECT_EQ(instance_owner_pid("kprobe-probe-0123"), 0);
  EXPECT_EQ(instance_owner_pid("kpptest_e2e_1234_1"), 0);
  EXPECT_EQ(instance_owner_pid("my-kprobe-probe-1234"), 0);
  EXPECT_EQ(instance_owner_pid("kprobe-probe-1234567890"), 0);
}

TEST(StaleInstances, NamesOutsideTheInitialPidNamespaceRecordIt) {
  // A container's pid 1234 is not the host's: its namespace is in the name.
  EXPECT_EQ(instance_name_of({1234, kInitialPidNamespace}), "kprobe-probe-1234");
  EXPECT_EQ(instance_name_of({1234, 4026532001}), "kprobe-probe-1234-ns4026532001");
  auto owner = instance_owner("kprobe-probe-1234-ns4026532001");
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->pid, 1234);
  EXPECT_EQ(owner->pid_namespace, 4026532001u);
  EXPECT_EQ(instance_owner("kprobe-probe-1234")->pid_namespace, kInitialPidNamespace);
  EXPECT_FALSE(instance_owner("kprobe-probe-1234-ns"));
  EXPECT_FALSE(instance_owner("kprobe-probe-1234-ns0123"));
  EXPECT_FALSE(instance_owner("kprobe-probe-1234-nsx"));
  EXPECT_FALSE(instance_owner("kprobe-probe--ns4026532001"));
  // This process (the tests run in the host's namespace or a container's) names its instance so.
  uint64_t ns = own_pid_namespace();
  ASSERT_NE(ns, 0u) << "/proc/self/ns/pid is unreadable";
  EXPECT_EQ(instance_owner(default_instance_name())->pid_namespace, ns);
}

// hist --latency's synthetic event is global: it carries its run's owner as
// the instance does, in a C identifier, for the stale sweep.
TEST(StaleInstances, SyntheticEventsRecordTheirRun) {
  EXPECT_EQ(synthetic_event_name_of({1234, kInitialPidNamespace}), "kpp_lat_1234");
  EXPECT_EQ(synthetic_event_name_of({1234, 4026532001}), "kpp_lat_1234_ns4026532001");
  auto owner = synthetic_event_owner("kpp_lat_1234_ns4026532001");
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->pid, 1234);
  EXPECT_EQ(owner->pid_namespace, 4026532001u);
  EXPECT_EQ(synthetic_event_owner("kpp_lat_77")->pid, 77);
  EXPECT_FALSE(synthetic_event_owner("kpp_lat_"));
  EXPECT_FALSE(synthetic_event_owner("kpp_lat_012"));
  EXPECT_FALSE(synthetic_event_owner("kpp_lat_1x"));
  EXPECT_FALSE(synthetic_event_owner("my_lat_12"));
}

// dynamic_events lists a synthetic event with a tab after its name.
TEST(StaleInstances, DynamicEventDirsReadEveryKind) {
  std::string dir = "/tmp/kpp_dynamic_events_" + std::to_string(getpid());
  mkdir(dir.c_str(), 0700);
  std::ofstream(dir + "/dynamic_events") << "p:probe/vfs_read vfs_read count=%dx:u64\n"
                                            "r4:probe/vfs_read__return vfs_read arg1=$retval:s64\n"
                                            "s:synthetic/kpp_lat_12\tu64 lat_us\n"
                                            "p:../etc x\n";
  EXPECT_EQ(dynamic_event_dirs(Tracefs(dir), 100),
            (std::vector<std::string>{"probe/vfs_read", "probe/vfs_read__return", "synthetic/kpp_lat_12"}));
  std::remove((dir + "/dynamic_events").c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace kpp
