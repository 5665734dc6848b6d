// hist on this machine's kernel: where it has no hist triggers (the hosts we
// build on: CONFIG_HIST_TRIGGERS is off) the command says so, points to the
// user-space alternatives, exits 1 and leaves no instance behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "src/stream/stale_instances.h"
#include "tests/common/run_command.h"
#include "tests/stream/uprobe_helper.h"

namespace kpp {
namespace {

// Instances that appeared since `before` and whose process is gone: what a
// finished kprobe-probe left behind. (Other engineers' tests create and
// remove instances on this machine meanwhile: those processes are alive.)
std::vector<std::string> left_behind(const std::vector<std::string> &before) {
  std::vector<std::string> left;
  for (const std::string &name : test::tracefs_instance_names()) {
    if (std::find(before.begin(), before.end(), name) != before.end()) continue;
    int pid = instance_owner_pid(name);
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) left.push_back(name);
  }
  return left;
}

TEST(HistHost, WithoutHistTriggersItSaysSoAndLeavesNothing) {
  if (std::string why = test::kernel_skip_reason(); !why.empty()) GTEST_SKIP() << why;
  test::FixtureUprobe probe(test::fixture_path(), "hist");
  ASSERT_TRUE(probe.ok()) << probe.error();
  std::string hist_file = "/sys/kernel/tracing/events/" + probe.group() + "/hit/hist";
  if (access(hist_file.c_str(), F_OK) == 0)
    GTEST_SKIP() << "this kernel has hist triggers; the guest case kprobe_probe_hist covers them";
  auto before = test::tracefs_instance_names();
  test::CommandRun hist = test::run_command(std::string(KPP_BINARY) + " hist -e " + probe.group() +
                                            ":hit --by comm --duration 1 2>&1");
  const std::string &out = hist.out;
  EXPECT_EQ(hist.status, 1) << out;
  EXPECT_NE(out.find("no hist triggers (CONFIG_HIST_TRIGGERS is off)"), std::string::npos) << out;
  EXPECT_NE(out.find("kprobe-probe live -e " + probe.group() + ":hit"), std::string::npos) << out;
  EXPECT_EQ(left_behind(before), std::vector<std::string>{});
}

// hist -- COMMAND where nothing can count: the command is never started (the
// triggers are set before it is), and nothing is left.
TEST(HistHost, WithoutHistTriggersTheCommandDoesNotRun) {
  if (std::string why = test::kernel_skip_reason(); !why.empty()) GTEST_SKIP() << why;
  test::FixtureUprobe probe(test::fixture_path(), "histcmd");
  ASSERT_TRUE(probe.ok()) << probe.error();
  std::string hist_file = "/sys/kernel/tracing/events/" + probe.group() + "/hit/hist";
  if (access(hist_file.c_str(), F_OK) == 0)
    GTEST_SKIP() << "this kernel has hist triggers; the guest case kprobe_probe_hist covers them";
  std::string witness = "/tmp/kpp_hist_cmd_" + std::to_string(getpid());
  unlink(witness.c_str());
  auto before = test::tracefs_instance_names();
  test::CommandRun hist = test::run_command(std::string(KPP_BINARY) + " hist -e " + probe.group() +
                                            ":hit --by comm -- touch " + witness + " 2>&1");
  const std::string &out = hist.out;
  EXPECT_EQ(hist.status, 1) << out;
  EXPECT_NE(out.find("no hist triggers (CONFIG_HIST_TRIGGERS is off)"), std::string::npos) << out;
  EXPECT_NE(access(witness.c_str(), F_OK), 0) << "the command ran though nothing could count";
  unlink(witness.c_str());
  EXPECT_EQ(left_behind(before), std::vector<std::string>{});
}

TEST(HistHost, BadKeysAreRefusedBeforeTracefsIsTouched) {
  test::CommandRun bogus = test::run_command(std::string(KPP_BINARY) + " hist -e x:y --by 'count.bogus' 2>&1");
  EXPECT_EQ(bogus.status, 1) << bogus.out;
  EXPECT_NE(bogus.out.find("unknown modifier '.bogus'"), std::string::npos) << bogus.out;
  test::CommandRun latency = test::run_command(std::string(KPP_BINARY) + " hist --latency no_such_function_xyz 2>&1");
  EXPECT_EQ(latency.status, 1) << latency.out;
  EXPECT_NE(latency.out.find("--latency no_such_function_xyz: no entry and return probes"), std::string::npos)
      << latency.out;
}

}  // namespace
}  // namespace kpp
