#include "src/hist/hist_table.h"

#include <gtest/gtest.h>

#include "tests/hist/kernel_hist_samples.h"

namespace kpp {
namespace {

using hist_samples::kExecnameHist;

// The same kernel, a log2 key (the latency histogram of a synthetic event).
const char *kLog2Hist = R"(# event histogram
#
# trigger info: hist:keys=lat.log2:vals=hitcount:sort=hitcount:size=2048 [active]
#

{ lat: ~ 2^7  } hitcount:          1
{ lat: ~ 2^11 } hitcount:          1
{ lat: ~ 2^4  } hitcount:          3

Totals:
    Hits: 5
    Entries: 3
    Dropped: 2
)";

HistRequest request_of(std::vector<std::string> by, std::vector<std::string> sums = {}) {
  HistRequest r;
  for (const auto &b : by) r.keys.push_back(*parse_hist_key(b));
  r.sums = std::move(sums);
  return r;
}

TEST(HistTable, ReadsRowsTotalsAndSums) {
  HistRequest req = request_of({"common_pid.execname"}, {"count"});
  auto t = parse_hist(kExecnameHist, req);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_EQ(t->rows[0].keys[0], "dd              [       100]");
  EXPECT_EQ(t->rows[0].hits, 3u);
  EXPECT_EQ(t->rows[0].sums[0], 21u);
  EXPECT_EQ(t->total_hits, 6u);
  EXPECT_EQ(t->dropped, 0u);
}

TEST(HistTable, ByCommAddsUpTheProcessesOfOneName) {
  HistRequest req = request_of({"comm"}, {"count"});
  auto t = parse_hist(kExecnameHist, req);
  ASSERT_TRUE(t) << t.error().message;
  merge_by_comm(*t, req);
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].keys[0], "cat");
  EXPECT_EQ(t->rows[0].hits, 3u);
  EXPECT_EQ(t->rows[0].sums[0], 196608u);
  EXPECT_EQ(format_hist_json(*t, req),
            "{\"key\":{\"comm\":\"cat\"},\"hits\":3,\"sum\":{\"count\":196608}}\n"
            "{\"key\":{\"comm\":\"dd\"},\"hits\":3,\"sum\":{\"count\":21}}\n");
  EXPECT_EQ(format_hist_text(*t, req),
            "comm  hits  sum(count)\n"
            "cat      3      196608\n"
            "dd       3          21\n");
}

TEST(HistTable, Log2BucketsSortedByCountWithTheirRange) {
  HistRequest req = request_of({"lat.log2"});
  auto t = parse_hist(kLog2Hist, req);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_EQ(t->rows[0].hits, 3u);
  EXPECT_EQ(t->dropped, 2u);
  std::string json = format_hist_json(*t, req);
  EXPECT_EQ(json.substr(0, json.find('\n')), "{\"key\":{\"lat.log2\":16},\"hits\":3}");
  std::string text = format_hist_text(*t, req);
  EXPECT_NE(text.find("(8, 16]"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped: 2"), std::string::npos) << text;
}

TEST(HistTable, ALineOfAnotherShapeIsAnErrorNamingIt) {
  HistRequest req = request_of({"fd"});
  auto t = parse_hist("{ count: 3 } hitcount: 1\n", req);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("count: 3"), std::string::npos);
}

}  // namespace
}  // namespace kpp
