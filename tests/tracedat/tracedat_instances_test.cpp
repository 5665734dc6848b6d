// `report` on a trace-cmd file with an instance buffer: a real uprobe
// enabled in a tracefs instance of the test's own, the fixture run, the
// buffer saved by `trace-cmd extract -B NAME` (trace-cmd's own writer), then
// read back by read_tracedat, which must find every call in that buffer and
// name it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "src/tracedat/tracedat_reader.h"
#include "tests/common/run_command.h"
#include "tests/tracedat/recording_test.h"

namespace kpp {
namespace {

class TraceDatInstancesTest : public test::RecordingTest {
 protected:
  void TearDown() override {
    // trace-cmd extract may leave the instance or remove it; remove what is left.
    if (!instance_dir_.empty()) {
      write(instance_dir_ + "/events/" + probe_->group() + "/hit/enable", "0");
      rmdir(instance_dir_.c_str());
    }
    test::RecordingTest::TearDown();
  }
  static bool write(const std::string &path, const std::string &text) {
    std::ofstream f(path);
    return bool(f << text) && bool(f.flush());
  }
  std::string instance_dir_;
};

TEST_F(TraceDatInstancesTest, ReportReadsTheInstanceBufferTraceCmdExtractWrote) {
  const std::string tracefs = "/sys/kernel/tracing";
  instance_dir_ = tracefs + "/instances/" + instance_name_;
  ASSERT_EQ(mkdir(instance_dir_.c_str(), 0755), 0) << "cannot create instance " << instance_dir_;
  ASSERT_TRUE(write(instance_dir_ + "/events/" + probe_->group() + "/hit/enable", "1"));
  const int n = 300;
  ASSERT_EQ(test::run_command(test::fixture_path() + " " + std::to_string(n) + " > " + base_ + ".out").status, 0);
  std::vector<test::Hit> truth = test::parse_fixture_output(test::read_file(base_ + ".out"));
  ASSERT_EQ(truth.size(), static_cast<size_t>(n));
  write(instance_dir_ + "/events/" + probe_->group() + "/hit/enable", "0");
  test::CommandRun extract =
      test::run_command("trace-cmd extract -B " + instance_name_ + " -o " + base_ + ".dat", test::Stderr::Merged);
  ASSERT_EQ(extract.status, 0) << extract.out;

  test::CollectSink sink;
  std::vector<std::string> named;
  auto summary = read_tracedat(base_ + ".dat", sink, [&](const std::string &name) { named.push_back(name); });
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_EQ(named, std::vector<std::string>{instance_name_});
  std::vector<test::Hit> hits;
  for (const Event &e : sink.events)
    if (e.system == probe_->group()) hits.push_back(test::hit_of(e));
  EXPECT_EQ(hits, truth) << "the instance buffer's events differ from the fixture's calls";
  ASSERT_EQ(summary->buffers.size(), 2u);
  EXPECT_EQ(summary->buffers[0].first, "");
  EXPECT_EQ(summary->buffers[1].first, instance_name_);
  EXPECT_EQ(summary->buffers[1].second, static_cast<uint64_t>(n));
}

}  // namespace
}  // namespace kpp
