#include "src/hist/hist_table.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "src/hist/event_fields.h"
#include "src/hist/hist_parse.h"

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


// The header the kernel prints before the rows (hist_trigger_show).
const char *kHeader = "# event histogram\n#\n# trigger info: hist:keys=name:vals=hitcount:sort=hitcount.descending:size=8192 [active]\n#\n\n";

std::string totals(uint64_t hits, uint64_t entries, uint64_t dropped = 0) {
  return "\nTotals:\n    Hits: " + std::to_string(hits) + "\n    Entries: " + std::to_string(entries) +
         "\n    Dropped: " + std::to_string(dropped) + "\n";
}

// "%-50s" of a string key, as hist_trigger_print_key prints it.
std::string padded(const std::string &value) { return value + std::string(value.size() < 50 ? 50 - value.size() : 0, ' '); }

// " hitcount: %10llu" and the newline.
std::string hitcount(uint64_t n) {
  char buf[40];
  std::snprintf(buf, sizeof buf, " hitcount: %10" PRIu64 "\n", n);
  return buf;
}

std::string string_row(const std::string &value, uint64_t hits) { return "{ name: " + padded(value) + " }" + hitcount(hits); }

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
  EXPECT_EQ(t->rows[0].keys[0], "dd");
  EXPECT_EQ(t->rows[0].pids[0], 100u);
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

TEST(HistTable, ARowOfAnotherShapeIsAnErrorNamingItsLine) {
  HistRequest req = request_of({"fd"});
  auto t = parse_hist(std::string(kHeader) + "{ count:          3 } hitcount:          1\n" + totals(1, 1), req);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("a row of another shape (line 6)"), std::string::npos) << t.error().message;
}

HistRequest string_request(std::vector<std::string> by = {"name"}) {
  HistRequest r = request_of(by);
  for (HistKey &k : r.keys) k.string = true;
  return r;
}

// The kernel's own text of the attack (6.1, in the guest): the forged path is
// one row, sh's, with its 2 opens; the newline path and the 60-byte path are
// rows; 11 rows of 12 hits, as the Totals say.
TEST(HistTable, TheKernelsTextOfAForgedPathIsOneRowEach) {
  HistRequest req = request_of({"name", "common_pid.execname"});
  req.keys[0].string = true;
  auto t = parse_hist(hist_samples::kForgedPathHist, req);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->rows.size(), 11u);
  EXPECT_EQ(t->total_hits, 12u);
  const HistRow &forged = t->rows[0];
  EXPECT_EQ(forged.keys[0], "x } hitcount:      31337\n{ name: /etc/shadow");
  EXPECT_EQ(forged.keys[1], "sh");
  EXPECT_EQ(forged.pids[1], 100u);
  EXPECT_EQ(forged.hits, 2u);
  auto has = [&](const std::string &key) {
    return std::any_of(t->rows.begin(), t->rows.end(), [&](const HistRow &r) { return r.keys[0] == key; });
  };
  EXPECT_TRUE(has("\n"));
  EXPECT_TRUE(has(std::string(59, '0') + "7"));
  EXPECT_FALSE(has("/etc/shadow"));
  EXPECT_FALSE(has("x"));
  std::string json = format_hist_json(*t, req);
  EXPECT_EQ(json.substr(0, json.find('\n')),
            "{\"key\":{\"name\":\"x } hitcount:      31337\\n{ name: /etc/shadow\",\"common_pid\":\"sh\"},\"hits\":2}");
}

// The issue's attack: a probed string that prints as the end of its row and a
// row of its own. Over 50 bytes it could be read as two rows: the kernel's
// Entries (1) say otherwise, and the table is refused, never shown.
TEST(HistTable, AStringForgingARowIsRefusedNotShown) {
  std::string forged = std::string(50, 'x') + " }" + hitcount(1) + "{ name: " + padded("FORGED");
  std::string text = std::string(kHeader) + string_row(forged, 5) + totals(5, 1);
  auto t = parse_hist(text, string_request());
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("does not add up"), std::string::npos) << t.error().message;
}

// The same text under 50 bytes: the kernel pads a string to 50, so no row can
// end inside it; the row is read whole, with its real count, and shown escaped.
TEST(HistTable, AShortForgedStringIsOneRowShownEscaped) {
  std::string forged = "x }" + hitcount(1) + "{ name: F";
  ASSERT_LT(forged.size(), 50u);
  std::string text = std::string(kHeader) + string_row(forged, 5) + totals(5, 1);
  HistRequest req = string_request();
  auto t = parse_hist(text, req);
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(t->rows[0].keys[0], forged);
  EXPECT_EQ(t->rows[0].hits, 5u);
  EXPECT_EQ(format_hist_text(*t, req),
            "name                                 hits\n"
            "x } hitcount:          1\\n{ name: F     5\n");
  EXPECT_EQ(format_hist_json(*t, req), "{\"key\":{\"name\":\"x } hitcount:          1\\n{ name: F\"},\"hits\":5}\n");
}

// A value of one newline (the issue: "unexpected line" ended the run).
TEST(HistTable, AStringOfANewlineIsARow) {
  std::string text = std::string(kHeader) + string_row("\n", 3) + string_row("/etc/passwd", 2) + totals(5, 2);
  auto t = parse_hist(text, string_request());
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].keys[0], "\n");
  EXPECT_EQ(t->rows[0].hits, 3u);
  EXPECT_EQ(t->rows[1].keys[0], "/etc/passwd");
}

// A string of 50 bytes or more is not padded: its trailing spaces are its own.
TEST(HistTable, ALongStringKeepsItsBytes) {
  std::string v = std::string(60, 'a') + "  ";
  auto t = parse_hist(std::string(kHeader) + string_row(v, 1) + totals(1, 1), string_request());
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->rows[0].keys[0], v);
}

// Rows that do not add up to the kernel's Hits are refused (a still table).
TEST(HistTable, HitsThatDoNotAddUpAreRefused) {
  std::string rows = string_row("a", 2) + string_row("b", 1);
  EXPECT_FALSE(parse_hist(std::string(kHeader) + rows + totals(4, 2), string_request()));
  EXPECT_FALSE(parse_hist(std::string(kHeader) + rows + totals(3, 3), string_request()));
  EXPECT_TRUE(parse_hist(std::string(kHeader) + rows + totals(3, 2), string_request()));
  // Live (the live view reads while the kernel counts): Hits may have grown.
  EXPECT_TRUE(parse_hist(std::string(kHeader) + rows + totals(4, 2), string_request(), HistSnapshot::Live));
  EXPECT_FALSE(parse_hist(std::string(kHeader) + rows + totals(2, 2), string_request(), HistSnapshot::Live));
}

// Two string keys: the first could end inside its own text and the second
// swallow the separators; a string holding one is refused.
TEST(HistTable, TwoStringKeysHoldingASeparatorAreRefused) {
  HistRequest req = string_request({"a", "b"});
  std::string a = std::string(50, 'x') + ", b: " + std::string(50, 'y');
  std::string row = "{ a: " + padded(a) + ", b: " + padded("z") + " }" + hitcount(1);
  auto t = parse_hist(std::string(kHeader) + row + totals(1, 1), req);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("two string keys"), std::string::npos) << t.error().message;
  row = "{ a: " + padded("plain") + ", b: " + padded("z") + " }" + hitcount(1);
  EXPECT_TRUE(parse_hist(std::string(kHeader) + row + totals(1, 1), req));
}

// A comm is 16 columns ("%-16s", at most 15 bytes), then the pid in brackets:
// a '[' of its own stays in it (it was cut at its last '[').
TEST(HistTable, ACommWithABracketIsWhole) {
  std::string text = std::string(kHeader) + "{ common_pid: a[b [1]         [       100] }" + hitcount(2) + totals(2, 1);
  HistRequest req = request_of({"comm"});
  auto t = parse_hist(text, req);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->rows[0].keys[0], "a[b [1]");
  merge_by_comm(*t, req);
  EXPECT_EQ(format_hist_json(*t, req), "{\"key\":{\"comm\":\"a[b [1]\"},\"hits\":2}\n");
}

TEST(HistTable, MoreThanOneHistogramIsRefused) {
  std::string one = std::string(kHeader) + string_row("a", 1) + totals(1, 1);
  auto t = parse_hist(one + "\n\n" + one, string_request());
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("more than one histogram"), std::string::npos) << t.error().message;
}

// The format file says which fields are strings; --sum of one is refused
// (the kernel adds up its addresses).
TEST(HistTable, EventFieldsMarkStringsAndRefuseTheirSum) {
  const char *format =
      "name: t\nID: 1234\nformat:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
      "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
      "\tfield:__data_loc char[] name;\toffset:16;\tsize:4;\tsigned:1;\n"
      "\tfield:char comm[16];\toffset:20;\tsize:16;\tsigned:1;\n"
      "\tfield:u64 count;\toffset:40;\tsize:8;\tsigned:0;\n";
  EXPECT_EQ(string_fields(format), (std::set<std::string>{"name", "comm"}));
  HistRequest req = request_of({"name", "count"}, {"count"});
  ASSERT_TRUE(apply_event_fields(req, format));
  EXPECT_TRUE(req.keys[0].string);
  EXPECT_FALSE(req.keys[1].string);
  HistRequest sum = request_of({"count"}, {"name"});
  Status s = apply_event_fields(sum, format);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("--sum name: 'name' is a string"), std::string::npos);
}

}  // namespace
}  // namespace kpp
