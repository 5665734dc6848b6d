// plan() on the e2e fixtures, through the library: the metadata a session
// needs (entry/return pairs, companions, sites) and the marks companions
// carry in their own definitions. No kernel: an empty snapshot.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dwarf/debug_info.h"
#include "src/plan/plan.h"
#include "src/probes/definition_shapes.h"
#include "util/companion_mark.h"

namespace kpp {
namespace {

const std::string fixture_dir = KPP_E2E_FIXTURE_DIR;

struct Planned {
  std::unique_ptr<dwarf::DebugInfo> debug;
  Result<Plan> plan = Error("not planned");
};

Planned plan_on(const std::string &program, const std::vector<std::string> &specs, KernelSnapshot snapshot = {}) {
  Planned p;
  std::string path = fixture_dir + "/" + program;
  auto debug = dwarf::DebugInfo::open(path);
  if (!debug) {
    p.plan = std::move(debug).error();
    return p;
  }
  p.debug = std::move(*debug);
  PlanTarget target;
  target.path = path;
  target.debug = p.debug.get();
  PlanOptions options;
  options.build.target_path = path;
  p.plan = plan(parse_probe_specs(specs), target, options, snapshot);
  return p;
}

int source_line_of(const std::string &marker) {
  std::ifstream in(KPP_E2E_FIXTURE_SOURCE);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.find(marker) != std::string::npos) return n;
  }
  return 0;
}

// The manual's own example: "add" is all hex letters, and at -O0 the entry
// probe sits past the prologue; entry and return still pair, by function.
TEST(Plan, EntryAndReturnOfOneFunctionPair) {
  auto p = plan_on("e2e_fixture_gcc_O0", {"scale a b", "scale%return $retval", "walk", "walk:5"});
  ASSERT_TRUE(p.plan) << p.plan.error().message;
  const Plan &plan = *p.plan;
  ASSERT_EQ(plan.events().size(), 4u);
  const PlanEvent *entry = plan.event("probe_e2e_fixture_gcc_O0:scale");
  const PlanEvent *ret = plan.event("probe_e2e_fixture_gcc_O0:scale__return");
  const PlanEvent *walk = plan.event("probe_e2e_fixture_gcc_O0:walk");
  const PlanEvent *line = plan.event("probe_e2e_fixture_gcc_O0:walk_L5");
  ASSERT_TRUE(entry && ret && walk && line);
  EXPECT_FALSE(entry->pair_key.empty());
  EXPECT_EQ(entry->pair_key, ret->pair_key);
  EXPECT_NE(entry->pair_key, walk->pair_key);
  EXPECT_TRUE(line->pair_key.empty()) << "a line is not a function entry";
  EXPECT_TRUE(ret->is_return);
  EXPECT_EQ(entry->role, PlanEvent::Role::Probe);
  // The site: its function, where in it, and the source line there (as the
  // debug info names the site's address).
  ASSERT_EQ(walk->sites.size(), 1u);
  EXPECT_EQ(walk->sites[0].function, "walk");
  EXPECT_GT(walk->sites[0].function_offset, 0u) << "-O0: past the prologue";
  ASSERT_FALSE(line->sites.empty());
  for (const PlanSite &s : line->sites) {
    auto place = p.debug->source_of(s.address);
    ASSERT_TRUE(place);
    EXPECT_EQ(place->line, source_line_of("KEEP int walk(") + 5);
    EXPECT_NE(place->file.find("e2e_fixture.c"), std::string::npos);
  }
  // Every site points at its own definition, which has the event's name.
  for (const PlanEvent &e : plan.events())
    for (const PlanSite &s : e.sites) {
      ASSERT_LT(s.definition, plan.definitions().size());
      EXPECT_EQ(plan.definitions()[s.definition].qualified_name(), e.qualified_name());
    }
}

// A probe that needs entry values: its companions are events of the plan
// that say whose they are, and their definitions carry the mark first.
TEST(Plan, CompanionsAreKnownFromThePlanAndFromTheirMarks) {
  auto p = plan_on("entry_value_fixture", {"consume:3 n it"});
  ASSERT_TRUE(p.plan) << p.plan.error().message;
  const Plan &plan = *p.plan;
  std::string owner = "probe_entry_value_fixture:consume_L3";
  ASSERT_TRUE(plan.event(owner));
  const PlanEvent *entry = plan.event(owner + "__entry");
  const PlanEvent *exit = plan.event(owner + "__exit");
  ASSERT_TRUE(entry && exit) << "gcc -O2 describes n and it with DW_OP_entry_value";
  EXPECT_EQ(entry->role, PlanEvent::Role::EntryCompanion);
  EXPECT_EQ(exit->role, PlanEvent::Role::ExitCompanion);
  EXPECT_EQ(entry->companion_of, owner);
  EXPECT_EQ(exit->companion_of, owner);
  const TraceDefinition &e = plan.definitions()[entry->sites[0].definition];
  const TraceDefinition &x = plan.definitions()[exit->sites[0].definition];
  ASSERT_GE(e.args.size(), 2u);
  EXPECT_EQ(e.args[0].name, companion_entry_mark);
  EXPECT_EQ(x.args[0].name, companion_exit_mark);
  // The one recogniser (what -d and the session ask) knows them from the
  // definitions alone, as tracefs would list them.
  Companions listed = Companions::recognise(probe_shapes(plan.definitions()));
  EXPECT_EQ(listed.role_of(owner + "__entry"), CompanionRole::Entry);
  EXPECT_EQ(listed.role_of(owner + "__exit"), CompanionRole::Exit);
  EXPECT_EQ(listed.owner_of(owner + "__entry"), owner);
  // Companions are written before the probe that needs them.
  EXPECT_LT(entry->sites[0].definition, plan.event(owner)->sites[0].definition);
  // The probe itself carries no mark, and a name alone makes no companion.
  const TraceDefinition &probe = plan.definitions()[plan.event(owner)->sites[0].definition];
  for (const FetchArg &a : probe.args) EXPECT_FALSE(is_companion_mark(a.name));
  std::vector<TraceDefinition> unmarked = plan.definitions();
  for (TraceDefinition &d : unmarked)
    if (!d.args.empty() && is_companion_mark(d.args.front().name)) d.args.erase(d.args.begin());
  EXPECT_TRUE(Companions::recognise(probe_shapes(unmarked)).empty()) << "without their marks, names make no companion";
}

// Names are chosen against the snapshot's events, and the plan says so.
TEST(Plan, NamesTakenInTheSnapshotAreRefusedOrSuffixed) {
  KernelSnapshot snapshot;
  snapshot.taken.insert("probe_e2e_fixture_gcc_O0:scale");
  auto refused = plan_on("e2e_fixture_gcc_O0", {"scale"}, snapshot);
  ASSERT_FALSE(refused.plan);
  EXPECT_NE(refused.plan.error().message.find("already exists"), std::string::npos) << refused.plan.error().message;
}

}  // namespace
}  // namespace kpp
