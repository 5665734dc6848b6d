// The kernel's reason for a refusal is the one logged for OUR command, not
// the log's last line.
#include <gtest/gtest.h>

#include "src/probes/error_log.h"
#include "src/probes/probe_engine.h"

namespace kpp {
namespace {

const char *const older =
    "[  741.302707] trace_uprobe: error: Failed to find the given file\n"
    "  Command: p:g/e /nonexistent:0x10\n"
    "                  ^\n";

TEST(ErrorLog, EntriesAreParsed) {
  auto entries = parse_error_log(older);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].reason, "Failed to find the given file");
  EXPECT_EQ(entries[0].command, "p:g/e /nonexistent:0x10");
}

TEST(ErrorLog, TheReasonIsTheNewEntryForOurCommand) {
  std::string ours = "p:g/e /bin/true:0x10 a=%di:u64";
  std::string after = std::string(older) +
                      "[  742.000001] trace_uprobe: error: Invalid fetch argument\n"
                      "  Command: " + ours + "\n"
                      "                              ^\n"
                      "[  742.000002] trace_kprobe: error: Another program's error\n"
                      "  Command: p:other/x vfs_read\n"
                      "             ^\n";
  auto before = parse_error_log(older);
  EXPECT_EQ(reason_for_command(before, parse_error_log(after), ours), "Invalid fetch argument");
  // The same command's older, stale entry is not taken for a new one.
  EXPECT_EQ(reason_for_command(parse_error_log(after), parse_error_log(after), ours), "");
  EXPECT_EQ(reason_for_command(before, parse_error_log(older), "p:g/e /nonexistent:0x10"), "");
}

TEST(EventMatches, GlobsMatchEventOrGroupAsPerfDoes) {
  EXPECT_TRUE(event_matches("grp*", "grp_one:walk"));
  EXPECT_TRUE(event_matches("wa*", "grp_one:walk"));
  EXPECT_TRUE(event_matches("grp_one:*", "grp_one:walk"));
  EXPECT_FALSE(event_matches("grp_two:*", "grp_one:walk"));
  EXPECT_FALSE(event_matches("xyz*", "grp_one:walk"));
}

}  // namespace
}  // namespace kpp

namespace kpp {
namespace {

ProbeEngine::ListedProbe uprobe(const std::string &group, const std::string &event, const std::string &path) {
  ProbeEngine::ListedProbe p;
  p.definition.kind = TraceDefinition::Kind::Uprobe;
  p.definition.group = group;
  p.definition.event = event;
  p.definition.path = path;
  return p;
}

// uprobe_profile names events without their group: two groups' "same" are
// told apart by their position, as uprobe_events lists them.
TEST(ProbeCounts, TwoGroupsSharingAnEventNameGetTheirOwnHits) {
  std::vector<ProbeEngine::ListedProbe> probes{uprobe("a", "same", "/bin/p"), uprobe("b", "same", "/bin/p")};
  auto counts = counts_by_position(probes, "", "  /bin/p same 0\n  /bin/p same 6\n");
  ASSERT_TRUE(counts[0] && counts[1]);
  EXPECT_EQ(counts[0]->hits, 0u);
  EXPECT_EQ(counts[1]->hits, 6u);
}

// The events changed between the reads: a line that is not the probe's own
// leaves its count unknown, never another probe's.
TEST(ProbeCounts, ALineOfAnotherProbeLeavesTheCountUnknown) {
  std::vector<ProbeEngine::ListedProbe> probes{uprobe("a", "one", "/bin/p"), uprobe("b", "two", "/bin/p")};
  auto counts = counts_by_position(probes, "", "  /bin/p two 5\n");
  EXPECT_FALSE(counts[0]);
  EXPECT_FALSE(counts[1]);
  ProbeEngine::ListedProbe k;
  k.definition.kind = TraceDefinition::Kind::Kprobe;
  k.definition.event = "vfs_read";
  probes.insert(probes.begin(), k);
  counts = counts_by_position(probes, "  vfs_read 12 1\n", "  /bin/q one 3\n  /bin/p two 4\n");
  ASSERT_TRUE(counts[0]);
  EXPECT_EQ(counts[0]->hits, 12u);
  EXPECT_EQ(counts[0]->misses, 1u);
  EXPECT_FALSE(counts[1]) << "another program's 'one'";
  ASSERT_TRUE(counts[2]);
  EXPECT_EQ(counts[2]->hits, 4u);
}

}  // namespace
}  // namespace kpp
