// trace.dat details trace-cmd writes and shows: the per-CPU statistics of
// the recorded instance (`trace-cmd report --stat`) and the trace clock
// (`trace-cmd dump --clock`), in versions 6 and 7, on real uprobe recordings.
#include <gtest/gtest.h>

#include <unistd.h>

#include <map>
#include <sstream>
#include <string>

#include "tests/common/run_command.h"
#include "tests/tracedat/recording_test.h"

namespace kpp {
namespace {

// "CPU: N" blocks of `trace-cmd report --stat`: field name -> value, per CPU.
using CpuStats = std::map<int, std::map<std::string, std::string>>;

CpuStats parse_stats(const std::string &text) {
  CpuStats out;
  std::istringstream in(text);
  std::string line;
  int cpu = -1;
  while (std::getline(in, line)) {
    if (line.rfind("CPU: ", 0) == 0) {
      cpu = std::atoi(line.c_str() + 5);
      continue;
    }
    auto colon = line.find(':');
    if (cpu < 0 || colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    out[cpu][line.substr(0, colon)] = value;
  }
  return out;
}

class TraceDatStatsTest : public test::RecordingTest, public ::testing::WithParamInterface<int> {};

TEST_P(TraceDatStatsTest, ReportStatShowsEveryCpuOfTheRecordingAndDumpShowsItsClock) {
  const int n = 500;
  std::vector<test::Hit> truth = record_fixture_calls(n, TraceDatOptions{true, GetParam(), ""});
  ASSERT_EQ(truth.size(), static_cast<size_t>(n));
  const std::string file = base_ + ".dat";

  test::CommandRun stat = test::run_command("trace-cmd report --stat " + file, test::Stderr::Merged);
  ASSERT_EQ(stat.status, 0) << stat.out;
  const std::string &text = stat.out;
  EXPECT_EQ(text.find("No stats in this file"), std::string::npos) << text;
  CpuStats stats = parse_stats(text);
  const long cpus = sysconf(_SC_NPROCESSORS_CONF);
  ASSERT_EQ(static_cast<long>(stats.size()), cpus) << text;
  // Only the test's probe was enabled in the instance, and the recorder read
  // its buffers empty: the CPUs' "read events" add up to the fixture's calls.
  long read = 0;
  for (auto &[cpu, fields] : stats) {
    for (const char *name : {"entries", "overrun", "commit overrun", "bytes", "oldest event ts", "now ts",
                             "dropped events", "read events"})
      EXPECT_EQ(fields.count(name), 1u) << "cpu" << cpu << " has no '" << name << "' in:\n" << text;
    EXPECT_EQ(fields["entries"], "0") << "cpu" << cpu << ": events left unread in the kernel buffer";
    EXPECT_EQ(fields["overrun"], "0") << "cpu" << cpu;
    EXPECT_EQ(fields["dropped events"], "0") << "cpu" << cpu;
    read += std::atol(fields["read events"].c_str());
  }
  EXPECT_EQ(read, n) << text;

  test::CommandRun dump = test::run_command("trace-cmd dump --clock " + file, test::Stderr::Merged);
  ASSERT_EQ(dump.status, 0) << dump.out;
  const std::string &clock = dump.out;
  EXPECT_NE(clock.find("[mono]"), std::string::npos) << "trace-cmd dump --clock printed:\n" << clock;
}

INSTANTIATE_TEST_SUITE_P(Versions, TraceDatStatsTest, ::testing::Values(6, 7),
                         [](const auto &info) { return "v" + std::to_string(info.param); });

}  // namespace
}  // namespace kpp
