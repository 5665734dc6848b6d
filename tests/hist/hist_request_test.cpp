#include "src/hist/hist_request.h"

#include <gtest/gtest.h>

#include "src/hist/latency.h"

namespace kpp {
namespace {

HistRequest request_of(std::vector<std::string> by, std::vector<std::string> sums = {}, std::string filter = {}) {
  HistRequest r;
  for (const auto &b : by) r.keys.push_back(*parse_hist_key(b));
  r.sums = std::move(sums);
  r.filter = std::move(filter);
  return r;
}

TEST(HistRequest, TriggerNamesKeysValuesAndSortsByCount) {
  EXPECT_EQ(hist_trigger(request_of({"count.log2"}, {"count"})),
            "hist:keys=count.log2:vals=hitcount,count:sort=hitcount.descending:size=8192");
  EXPECT_EQ(hist_trigger(request_of({"fd", "common_pid.execname"}, {}, "count > 4")),
            "hist:keys=fd,common_pid.execname:vals=hitcount:sort=hitcount.descending:size=8192 if count > 4");
}

// 6.1 refuses "keys=common_comm" and "keys=comm" (seen in the guest): a comm
// is asked of the kernel as the pid's execname and merged afterwards.
TEST(HistRequest, CommIsThePidsExecname) {
  HistKey k = *parse_hist_key("comm");
  EXPECT_EQ(k.trigger_key(), "common_pid.execname");
  EXPECT_EQ(k.printed_name(), "common_pid");
  EXPECT_EQ(k.column(), "comm");
}

TEST(HistRequest, TheKernelsStackKeyIsRefusedForTraceFolded) {
  for (const char *key : {"stacktrace", "common_stacktrace", "stacktrace.hex"}) {
    auto k = parse_hist_key(key);
    ASSERT_FALSE(k) << key;
    EXPECT_NE(k.error().message.find("kernel stacks only"), std::string::npos) << k.error().message;
    EXPECT_NE(k.error().hint.find("--stack --folded"), std::string::npos) << k.error().hint;
  }
}

TEST(HistRequest, RefusesWhatIsNotAFieldOrModifier) {
  EXPECT_FALSE(parse_hist_key("count.bogus"));
  EXPECT_FALSE(parse_hist_key("a:b"));
  EXPECT_FALSE(parse_hist_key("x if 1"));
  EXPECT_FALSE(parse_hist_key(""));
  EXPECT_FALSE(check_hist_field("--sum", "count\nhist:keys=x"));
  EXPECT_FALSE(check_hist_filter("a == 1\n!hist:keys=x"));
  EXPECT_TRUE(check_hist_filter("count > 4 && fd == 3"));
  // Put in parentheses before "&& common_pid != OURS": a ')' of its own
  // would let "|| (1" count the tool's own reads again.
  EXPECT_FALSE(check_hist_filter("1) || (1"));
  EXPECT_FALSE(check_hist_filter("(fd == 3"));
  EXPECT_FALSE(check_hist_filter("comm == \"a"));
  EXPECT_TRUE(check_hist_filter("(fd == 3 || fd == 4) && comm == \")\""));
  EXPECT_EQ(hist_pause_trigger("hist:keys=fd:vals=hitcount if (fd == 3) && common_pid != 7"),
            "hist:keys=fd:vals=hitcount:pause if (fd == 3) && common_pid != 7");
  EXPECT_EQ(hist_pause_trigger("hist:keys=fd:vals=hitcount"), "hist:keys=fd:vals=hitcount:pause");
}

TEST(HistLatency, EntrySavesTimeReturnFiresTheSyntheticEvent) {
  LatencyTriggers t = latency_triggers(EventId{"probe", "vfs_read"}, "kpp_lat_42");
  EXPECT_EQ(t.synthetic_definition, "kpp_lat_42 u64 lat_us");
  EXPECT_EQ(t.entry_trigger, "hist:keys=common_pid:kpp_ts0=common_timestamp.usecs");
  EXPECT_EQ(t.return_trigger,
            "hist:keys=common_pid:kpp_lat=common_timestamp.usecs-$kpp_ts0:onmatch(probe.vfs_read)"
            ".trace(kpp_lat_42,$kpp_lat)");
  EXPECT_EQ(hist_trigger(t.histogram), "hist:keys=lat_us.log2:vals=hitcount:sort=hitcount.descending:size=8192");
}

// The live view reads our triggers back from the trigger files: the lines
// as Debian's 6.1 kernel printed them in the guest (its hist files' "trigger
// info", tests/hist/hist_table_test.cpp).
TEST(HistTrigger, ReadsBackWhatTheKernelListsOfOurTriggers) {
  auto r = parse_hist_trigger(
      "hist:keys=common_pid.execname:vals=hitcount,count:sort=hitcount.descending:size=2048 [active]");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->keys.size(), 1u);
  EXPECT_EQ(r->keys[0].column(), "comm");
  EXPECT_EQ(r->keys[0].printed_name(), "common_pid");
  EXPECT_EQ(r->sums, std::vector<std::string>{"count"});
  r = parse_hist_trigger("hist:keys=lat.log2:vals=hitcount:sort=hitcount:size=2048 [active]");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->keys[0].column(), "lat.log2");
  EXPECT_TRUE(r->sums.empty());
  // What we write comes back the same (the filter included).
  HistRequest asked;
  asked.keys = {*parse_hist_key("comm"), *parse_hist_key("count.log2")};
  asked.sums = {"count"};
  asked.filter = "(count < 8) && common_pid != 42";
  r = parse_hist_trigger(hist_trigger(asked) + " [paused]");
  ASSERT_TRUE(r);
  EXPECT_EQ(hist_trigger(*r), hist_trigger(asked));
}

TEST(HistTrigger, LeavesOutWhatIsNotACountingHistogram) {
  // --latency's entry and return triggers: variables and an action.
  EXPECT_FALSE(parse_hist_trigger(
      "hist:keys=common_pid:vals=hitcount:kpp_ts0=common_timestamp.usecs:sort=hitcount:size=2048 [active]"));
  EXPECT_FALSE(parse_hist_trigger("hist:keys=common_pid:vals=hitcount:kpp_lat=common_timestamp.usecs-$kpp_ts0:"
                                  "sort=hitcount:size=2048:onmatch(probe.vfs_read).trace(kpp_lat_42,$kpp_lat) [active]"));
  EXPECT_FALSE(parse_hist_trigger("stacktrace:unlimited if common_pid != 1"));
  EXPECT_FALSE(parse_hist_trigger("hist:keys=a b:vals=hitcount [active]"));
  EXPECT_FALSE(parse_hist_trigger("hist:vals=hitcount [active]"));
  EXPECT_FALSE(parse_hist_trigger("# Available triggers:"));
}

}  // namespace
}  // namespace kpp
