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
