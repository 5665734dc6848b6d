// Version 7 recordings (uncompressed, zstd, zlib) read back by the real
// readers, and kprobe-probe's own reader (read_tracedat, behind `report`)
// against `trace-cmd report` on the same files, v6 and v7.
#include <gtest/gtest.h>

#include "src/tracedat/tracedat_reader.h"
#include "tests/tracedat/recording_test.h"
#include "tests/tracedat/tracedat_readers.h"

namespace kpp {
namespace {

using test::Hit;

class TraceDatV7Test : public test::RecordingTest, public ::testing::WithParamInterface<const char *> {};

TEST_P(TraceDatV7Test, RecordedFileIsReadByTraceCmdReportAndLibtracecmdWithTheFixturesValues) {
  const std::string compression = GetParam();
  std::vector<Hit> truth = record_fixture_calls(2000, TraceDatOptions{true, 7, compression});
  ASSERT_EQ(truth.size(), 2000u);
  std::string head = test::read_file(base_ + ".dat").substr(0, 24);
  EXPECT_EQ(head.compare(0, 12, std::string("\x17\x08\x44tracing7\0", 12)), 0) << "not a version 7 file";
  EXPECT_EQ(head.compare(18, compression.size() + 1, compression + '\0'), 0) << "compression header";
  if (compression != "none" && !test::trace_cmd_supports_compression(compression))
    GTEST_SKIP() << "this trace-cmd cannot read " << compression << " files ('trace-cmd list -c'); "
                 << "TraceDatLayout.V7ZlibSectionsAndChunksUncompressToWhatWasGiven checks the layout";

  int status = -1;
  std::string text;
  std::vector<Hit> reported = test::hits_of(test::trace_cmd_report(base_ + ".dat", &status, &text));
  EXPECT_EQ(status, 0) << text.substr(0, 2000);
  EXPECT_TRUE(reported == truth) << "trace-cmd report disagrees with the fixture: " << reported.size()
                                 << " hits; " << text.substr(0, 1500);
  for (const char *word : {"warning", "Warning", "error", "failed", "unknown option"})
    EXPECT_EQ(text.find(word), std::string::npos) << word << " in: " << text.substr(0, 1500);

  test::LibReadResult lib = test::libtracecmd_hits(base_ + ".dat");
  ASSERT_TRUE(lib.opened) << "tracecmd_open refused the file";
  EXPECT_TRUE(lib.hits == truth) << "libtracecmd disagrees with the fixture";
  EXPECT_TRUE(std::is_sorted(lib.ts.begin(), lib.ts.end()));
}

INSTANTIATE_TEST_SUITE_P(Compressions, TraceDatV7Test, ::testing::Values("none", "zstd", "zlib"),
                         [](const auto &info) { return std::string(info.param); });

class ReportTest : public test::RecordingTest, public ::testing::WithParamInterface<TraceDatOptions> {};

// What `kprobe-probe report` decodes is what the fixture did and what
// trace-cmd shows: same values, times, CPUs, pids and comms, same order.
TEST_P(ReportTest, ReadTracedatSeesWhatTraceCmdReportShows) {
  std::vector<Hit> truth = record_fixture_calls(1500, GetParam());
  ASSERT_EQ(truth.size(), 1500u);
  test::CollectSink ours;
  auto sum = read_tracedat(base_ + ".dat", ours);
  ASSERT_TRUE(sum) << sum.error().message;
  EXPECT_EQ(sum->events, truth.size());
  EXPECT_TRUE(sum->warnings.empty());

  int status = -1;
  std::string text;
  std::vector<test::ReportedHit> theirs = test::trace_cmd_report(base_ + ".dat", &status, &text);
  ASSERT_EQ(theirs.size(), truth.size()) << text.substr(0, 1500);
  ASSERT_EQ(ours.events.size(), truth.size());
  for (size_t k = 0; k < truth.size(); ++k) {
    const Event &e = ours.events[k];
    ASSERT_EQ(test::hit_of(e), truth[k]) << "event " << k;
    EXPECT_EQ(e.system, probe_->group());
    EXPECT_EQ(e.name, "hit");
    EXPECT_EQ(e.time_ns, theirs[k].time_ns) << "event " << k;
    EXPECT_EQ(e.cpu, theirs[k].cpu) << "event " << k;
    EXPECT_EQ(e.pid, theirs[k].pid) << "event " << k;
    EXPECT_EQ(e.comm, theirs[k].comm) << "event " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, ReportTest,
                         ::testing::Values(TraceDatOptions{true, 6, ""}, TraceDatOptions{true, 7, "zstd"}),
                         [](const auto &info) { return "v" + std::to_string(info.param.file_version) +
                                                       (info.param.compression.empty() ? "" : "_" + info.param.compression); });

TEST(ReadTracedat, NamesWhatIsWrongWithAFileThatIsNotATraceDat) {
  test::CollectSink sink;
  auto missing = read_tracedat("/nonexistent-dir/x.dat", sink);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("cannot open /nonexistent-dir/x.dat"), std::string::npos);
  auto text = read_tracedat("/proc/self/status", sink);
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("is not a trace.dat"), std::string::npos) << text.error().message;
}

}  // namespace
}  // namespace kpp
