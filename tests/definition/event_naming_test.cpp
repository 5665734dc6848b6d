// perf probe's group and event names, from /work/shared/REFERENCE.md 1.1 and
// 1.2 (convert_exec_to_group(), probe_trace_event__set_name() and
// get_new_event_name() in tools/perf/util/probe-event.c), and the kernel's
// MAX_EVENT_NAME_LEN of 64 bytes with the NUL (traceprobe_parse_event_name()
// refuses len >= 64).
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "src/definition/probe_builder.h"

namespace kpp {
namespace {

TEST(DefaultGroup, IsProbeUnderscoreTheExecutable) {
  EXPECT_EQ(default_group("/usr/lib64/libc.so.6"), "probe_libc");
  EXPECT_EQ(default_group("/lib64/libc.so.6"), "probe_libc");
  EXPECT_EQ(default_group("/bin/zsh"), "probe_zsh");
  EXPECT_EQ(default_group("task_interval"), "probe_task_interval");
  EXPECT_EQ(default_group("/opt/app/my-server"), "probe_my");
}

TEST(DefaultGroup, IsProbeForTheKernel) { EXPECT_EQ(default_group(""), "probe"); }

TEST(DefaultGroup, OfALongProgramNameIsShortenedToo) {
  std::string group = default_group("/opt/" + std::string(80, 'p'));
  EXPECT_EQ(group.size(), 63u) << group;
  EXPECT_TRUE(group.starts_with("probe_ppp")) << group;
  EXPECT_EQ(default_group("/opt/" + std::string(80, 'p')), group);
}

// A spec as the parser would give it, with one resolved site.
ResolvedSpec spec(std::string text, std::string function, int line = 0) {
  ResolvedSpec r;
  r.spec.text = std::move(text);
  r.spec.point.function = std::move(function);
  r.spec.point.line = line;
  ResolvedProbe site;
  site.definition.kind = TraceDefinition::Kind::Uprobe;
  site.definition.path = "/usr/bin/prog";
  site.point = r.spec.text;
  r.sites.push_back(site);
  return r;
}

ResolvedSpec returning(ResolvedSpec r) {
  r.spec.point.is_return = true;
  return r;
}

ResolvedSpec at_offset(ResolvedSpec r, uint64_t offset) {
  r.spec.point.offset = offset;
  return r;
}

ResolvedSpec named(ResolvedSpec r, std::string group, std::string event) {
  r.spec.group = std::move(group);
  r.spec.event = std::move(event);
  return r;
}

// "group:event" of every site of every spec, after naming them for /usr/bin/prog.
std::vector<std::string> names_of(std::vector<ResolvedSpec> specs, std::set<std::string> taken = {},
                                  bool allow_suffix = false) {
  Status s = assign_event_names(specs, "/usr/bin/prog", std::move(taken), allow_suffix);
  if (!s) return {"error: " + s.error().message};
  std::vector<std::string> out;
  for (const ResolvedSpec &r : specs)
    for (const ResolvedProbe &site : r.sites) out.push_back(site.definition.qualified_name());
  return out;
}

using Names = std::vector<std::string>;

TEST(EventName, IsTheFunction) { EXPECT_EQ(names_of({spec("walk", "walk")}), Names{"probe_prog:walk"}); }

TEST(EventName, LineProbeGetsL) {
  EXPECT_EQ(names_of({spec("walk:5", "walk", 5)}), Names{"probe_prog:walk_L5"});
  EXPECT_EQ(names_of({spec("walk:0", "walk", 0)}), Names{"probe_prog:walk"});
}

TEST(EventName, ReturnProbeGetsReturn) {
  EXPECT_EQ(names_of({returning(spec("walk%return", "walk"))}), Names{"probe_prog:walk__return"});
}

TEST(EventName, OffsetProbeHasNoSuffix) {
  EXPECT_EQ(names_of({at_offset(spec("walk+4", "walk"), 4)}), Names{"probe_prog:walk"});
}

TEST(EventName, LazyPatternHasNoSuffix) {
  ResolvedSpec r = spec("walk;p = *", "walk");
  r.spec.point.lazy_pattern = "p = *";
  EXPECT_EQ(names_of({r}), Names{"probe_prog:walk"});
}

TEST(EventName, CompilerSuffixesAreCut) {
  EXPECT_EQ(names_of({spec("walk.isra.0", "walk.isra.0")}), Names{"probe_prog:walk"});
  EXPECT_EQ(names_of({spec("malloc@GLIBC_2.2.5", "malloc@GLIBC_2.2.5")}), Names{"probe_prog:malloc"});
}

TEST(EventName, ExplicitGroupAndEvent) {
  EXPECT_EQ(names_of({named(spec("grp:ev=walk", "walk"), "grp", "ev")}), Names{"grp:ev"});
  EXPECT_EQ(names_of({named(spec("ev=walk:5", "walk", 5), "", "ev")}), Names{"probe_prog:ev"});
}

TEST(EventName, EverySiteOfASpecSharesTheName) {
  ResolvedSpec r = spec("walk:5", "walk", 5);
  r.sites.push_back(r.sites.front());  // an inlined copy: one multi-probe event
  EXPECT_EQ(names_of({r}), (Names{"probe_prog:walk_L5", "probe_prog:walk_L5"}));
}

TEST(EventName, ClashWithoutSuffixesIsAnError) {
  std::vector<ResolvedSpec> specs{spec("walk", "walk")};
  Status s = assign_event_names(specs, "/usr/bin/prog", {"probe_prog:walk"}, false);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("already exists"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("probe_prog:walk"), std::string::npos) << s.error().message;
  EXPECT_FALSE(s.error().hint.empty());
}

TEST(EventName, ClashWithinOneCallWithoutSuffixesIsAnError) {
  std::vector<ResolvedSpec> specs{spec("walk", "walk"), spec("walk", "walk")};
  Status s = assign_event_names(specs, "/usr/bin/prog", {}, false);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("already exists"), std::string::npos) << s.error().message;
}

TEST(EventName, ClashWithSuffixesCountsUp) {
  EXPECT_EQ(names_of({spec("walk", "walk")}, {"probe_prog:walk"}, true), Names{"probe_prog:walk_1"});
  EXPECT_EQ(names_of({spec("walk", "walk")}, {"probe_prog:walk", "probe_prog:walk_1"}, true),
            Names{"probe_prog:walk_2"});
  EXPECT_EQ(names_of({spec("walk", "walk"), spec("walk", "walk"), spec("walk", "walk")}, {}, true),
            (Names{"probe_prog:walk", "probe_prog:walk_1", "probe_prog:walk_2"}));
  // The same event name in another group is no clash.
  EXPECT_EQ(names_of({spec("walk", "walk")}, {"probe:walk"}, false), Names{"probe_prog:walk"});
}

TEST(EventName, At63BytesIsAccepted) {
  std::string name(63, 'f');
  EXPECT_EQ(names_of({spec(name, name)}), Names{"probe_prog:" + name});
}

// Longer names (C++, Go) are shortened: a prefix, 8 hex digits of a hash
// of the whole name, and perf's suffix, 63 bytes in all.
TEST(EventName, LongerThan63BytesIsShortenedToFit) {
  std::string name = "shapes::deeply_nested_namespace_for_names::AnotherRatherLongClassName::measure";
  ResolvedSpec r = spec(name + ":2", name, 2);
  std::vector<ResolvedSpec> specs{r};
  ASSERT_TRUE(assign_event_names(specs, "/usr/bin/prog", {}, false));
  const ResolvedProbe &site = specs[0].sites[0];
  const std::string &event = site.definition.event;
  EXPECT_EQ(event.size(), 63u) << event;
  EXPECT_TRUE(event.starts_with("shapes_deeply_nested_namespace_for_names_Anoth")) << event;
  EXPECT_TRUE(std::regex_match(event, std::regex("[A-Za-z_][A-Za-z0-9_]*_[0-9a-f]{8}_L2"))) << event;
  EXPECT_EQ(site.long_event, "shapes_deeply_nested_namespace_for_names_AnotherRatherLongClassName_measure_L2");
}

TEST(EventName, ShorteningIsTheSameEveryTime) {
  std::string name(100, 'f');
  Names first = names_of({spec(name, name)});
  EXPECT_EQ(names_of({spec(name, name)}), first);
  EXPECT_EQ(first.front(), "probe_prog:" + std::string(54, 'f') + "_" + "196eedf5") << "pinned: a change renames users' events";
}

TEST(EventName, LongNamesThatDifferOnlyAtTheEndStayDistinct) {
  std::string a = std::string(80, 'f') + "a", b = std::string(80, 'f') + "b";
  Names names = names_of({spec(a, a), spec(b, b)});
  ASSERT_EQ(names.size(), 2u) << names.front();
  EXPECT_NE(names[0], names[1]);
  for (const std::string &n : names) EXPECT_EQ(n.size(), std::string("probe_prog:").size() + 63) << n;
}

TEST(EventName, ShortNamesAreLeftAlone) {
  std::vector<ResolvedSpec> specs{spec("walk", "walk")};
  ASSERT_TRUE(assign_event_names(specs, "/usr/bin/prog", {}, false));
  EXPECT_EQ(specs[0].sites[0].long_event, "");
}

TEST(EventName, ASuffixThatMakesItTooLongIsFittedToo) {
  std::string name(62, 'f');  // fits; name_1 would be 64 bytes
  Names names = names_of({spec(name, name)}, {"probe_prog:" + name}, true);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].size(), std::string("probe_prog:").size() + 63) << names[0];
  EXPECT_TRUE(names[0].ends_with("_1")) << names[0];
}

TEST(EventName, CxxNamesBecomeIdentifiers) {
  EXPECT_EQ(names_of({spec("shapes::twice(long)", "shapes::twice(long)")}), Names{"probe_prog:shapes_twice_long"});
  EXPECT_EQ(names_of({spec("ns::max<int>:3", "ns::max<int>", 3)}), Names{"probe_prog:ns_max_int_L3"});
}

// An entry-value companion's name is the event's and "__entry": the event
// leaves room for it.
TEST(EventName, LongNamesLeaveRoomForCompanions) {
  std::string name(70, 'f');
  ResolvedSpec r = spec(name + ":3", name, 3);
  TraceDefinition entry;
  entry.event = "__entry";
  r.sites[0].companions.push_back(entry);
  std::vector<ResolvedSpec> specs{r};
  ASSERT_TRUE(assign_event_names(specs, "/usr/bin/prog", {}, false));
  EXPECT_EQ(specs[0].sites[0].companions[0].event.size(), 63u) << specs[0].sites[0].companions[0].event;
  EXPECT_EQ(specs[0].sites[0].companions[0].event, specs[0].sites[0].definition.event + "__entry");
}

}  // namespace
}  // namespace kpp

namespace kpp {
namespace {

// The kernel joins probe points under one event only when their arguments
// have the same names and types ("Argument type or name is different from
// existing probe"); perf gives the others events of their own, _1, _2...
TEST(EventName, SitesWithDifferentArgumentTypesGetTheirOwnEvents) {
  ResolvedSpec r = spec("acc:2 start", "acc", 2);
  r.sites.push_back(r.sites.front());
  r.sites.push_back(r.sites.front());
  r.sites[0].definition.args = {{"start", "-16(%bp)", "s32"}};
  r.sites[1].definition.args = {{"start", "-24(%bp)", "s64"}};
  r.sites[2].definition.args = {{"start", "-20(%bp)", "s32"}};
  EXPECT_EQ(names_of({r}), (Names{"probe_prog:acc_L2", "probe_prog:acc_L2_1", "probe_prog:acc_L2"}));
}

}  // namespace
}  // namespace kpp
