// Real-kernel tests (root, tracefs, uprobes): our instance, the stream and
// run_session against a uprobe on the fixture, compared with what the
// fixture itself printed.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

#include "event/json_format.h"
#include "event/text_format.h"
#include "src/stream/event_stream.h"
#include "src/stream/session.h"
#include "src/stream/trace_instance.h"
#include "src/tracefs/tracefs_mount.h"
#include "tests/common/run_command.h"
#include "tests/stream/uprobe_helper.h"

namespace kpp {
namespace {

using test::Hit;

using test::CollectSink;
using test::hit_of;

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = test::kernel_skip_reason(); !why.empty()) GTEST_SKIP() << why;
    probe_ = std::make_unique<test::FixtureUprobe>(test::fixture_path(), "stream");
    if (!probe_->ok()) GTEST_SKIP() << "cannot create the fixture uprobe: " << probe_->error();
    instance_name_ = "kpp-test-" + std::to_string(getpid());
    out_path_ = "/tmp/kpp-stream-test-" + std::to_string(getpid()) + ".out";
  }
  void TearDown() override {
    if (!instance_name_.empty() && probe_) {
      auto names = test::tracefs_instance_names();
      EXPECT_EQ(std::count(names.begin(), names.end(), instance_name_), 0) << "instance left behind";
    }
    if (probe_ && probe_->ok()) {
      EXPECT_EQ(test::top_level_enable(probe_->group(), "hit"), "0");
    }
    probe_.reset();
    std::remove(out_path_.c_str());
  }

  SessionOptions session_for(int n) {
    SessionOptions o;
    o.events = {probe_->pattern()};
    o.instance_name = instance_name_;
    o.command = {"/bin/sh", "-c", "exec " + test::fixture_path() + " " + std::to_string(n) + " > " + out_path_};
    return o;
  }

  std::unique_ptr<test::FixtureUprobe> probe_;
  std::string instance_name_, out_path_;
};

TEST(Tracefs, EnsureTracefsReturnsAMountedDirectory) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto dir = ensure_tracefs();
  ASSERT_TRUE(dir) << dir.error().message;
  EXPECT_EQ(access((*dir + "/instances").c_str(), F_OK), 0) << *dir;
}

TEST_F(StreamTest, InstanceEnablesInItselfAndCloseRemovesIt) {
  auto inst = TraceInstance::create(instance_name_);
  ASSERT_TRUE(inst) << inst.error().message;
  auto names = test::tracefs_instance_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), instance_name_), 1);
  auto enabled = inst->enable(probe_->pattern());
  ASSERT_TRUE(enabled) << enabled.error().message;
  ASSERT_EQ(enabled->size(), 1u);
  EXPECT_EQ((*enabled)[0], (EventId{probe_->group(), "hit"}));
  auto dir = ensure_tracefs();
  EXPECT_EQ(test::read_file(*dir + "/instances/" + instance_name_ + "/events/" + probe_->group() + "/hit/enable"), "1\n");
  // The user's top level is untouched.
  EXPECT_EQ(test::top_level_enable(probe_->group(), "hit"), "0");
  auto none = inst->enable("kpptest_no_such_group_*:*");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no event matches"), std::string::npos);
  auto bad_filter = inst->set_filter("no_such_field == 1");
  ASSERT_FALSE(bad_filter);
  EXPECT_NE(bad_filter.error().message.find("invalid filter"), std::string::npos);
  ASSERT_TRUE(inst->close());
  names = test::tracefs_instance_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), instance_name_), 0);
}

TEST_F(StreamTest, SessionDeliversEveryHitInOrderWithTheFixturesValues) {
  const int n = 2000;
  CollectSink sink;
  auto sum = run_session(session_for(n), {&sink});
  ASSERT_TRUE(sum) << sum.error().message;
  std::vector<Hit> truth = test::parse_fixture_output(test::read_file(out_path_));
  ASSERT_EQ(truth.size(), static_cast<size_t>(n));
  ASSERT_EQ(sink.events.size(), truth.size());
  for (size_t k = 0; k < truth.size(); ++k) {
    ASSERT_EQ(hit_of(sink.events[k]), truth[k]) << "event " << k;
    EXPECT_EQ(sink.events[k].pid, sum->command_pid);
    EXPECT_EQ(sink.events[k].comm, "kpp_stream_fixt");  // comm is 15 chars
    EXPECT_EQ(sink.events[k].system, probe_->group());
    EXPECT_EQ(sink.events[k].name, "hit");
    EXPECT_NE(sink.events[k].probe_ip, 0u);
    if (k) {
      EXPECT_LE(sink.events[k - 1].time_ns, sink.events[k].time_ns);
    }
  }
  EXPECT_TRUE(sink.lost.empty());
  EXPECT_EQ(sum->events, static_cast<uint64_t>(n));
  ASSERT_EQ(sum->per_event.size(), 1u);
  EXPECT_EQ(sum->per_event[0].first, probe_->group() + ":hit");
  EXPECT_EQ(sum->per_event[0].second, static_cast<uint64_t>(n));
  for (uint64_t l : sum->lost_per_cpu) EXPECT_EQ(l, 0u);
  EXPECT_TRUE(sum->command.ended);
  EXPECT_EQ(sum->command.status(), 0);
  // Field kinds follow the probe's declared types.
  const Event &e = sink.events[0];
  EXPECT_EQ(e.field("i")->value.kind, FieldKind::Signed);
  EXPECT_EQ(e.field("sq")->value.kind, FieldKind::Unsigned);
  EXPECT_EQ(e.field("name")->value.kind, FieldKind::String);
  EXPECT_EQ(e.field("tag")->value.kind, FieldKind::Hex);
}

TEST_F(StreamTest, FilterAndPidOnlyLimitWhatIsSeen) {
  SessionOptions o = session_for(50);
  o.filter = "i >= 10";
  o.pid_only = true;
  CollectSink sink;
  auto sum = run_session(o, {&sink});
  ASSERT_TRUE(sum) << sum.error().message;
  std::vector<Hit> truth = test::parse_fixture_output(test::read_file(out_path_));
  std::erase_if(truth, [](const Hit &h) { return h.i < 10; });
  ASSERT_EQ(sink.events.size(), truth.size());
  for (size_t k = 0; k < truth.size(); ++k) EXPECT_EQ(hit_of(sink.events[k]), truth[k]);
}

TEST_F(StreamTest, DurationStopsTheSessionAndTheCommand) {
  SessionOptions o;
  o.events = {probe_->pattern()};
  o.instance_name = instance_name_;
  o.duration_s = 0.5;
  o.command = {test::fixture_path(), "forever"};
  CollectSink sink;
  auto sum = run_session(o, {&sink});
  ASSERT_TRUE(sum) << sum.error().message;
  EXPECT_TRUE(sum->duration_elapsed);
  EXPECT_EQ(sum->command.signal, SIGTERM);  // the session ended it
  EXPECT_GT(sink.events.size(), 0u);  // ~1 hit per ms, fewer on a loaded machine
  EXPECT_LT(sum->seconds, 2.0);
  // The forever loop counts k = 0, 1, 2... with no gap: nothing lost.
  for (size_t k = 0; k < sink.events.size(); ++k) ASSERT_EQ(sink.events[k].field("i")->value.i, static_cast<long>(k));
}

TEST_F(StreamTest, LostEventsAreCountedAndReportedNeverSilent) {
  // A tiny buffer drained rarely: the kernel overwrites, and must tell us.
  const int n = 20000;
  SessionOptions o = session_for(n);
  o.buffer_size_kb = 8;
  o.poll_interval_ms = 5000;
  CollectSink sink;
  auto sum = run_session(o, {&sink});
  ASSERT_TRUE(sum) << sum.error().message;
  uint64_t lost = 0;
  for (uint64_t l : sum->lost_per_cpu) lost += l;
  ASSERT_FALSE(sink.lost.empty()) << "events were dropped (" << sink.events.size() << " of " << n << ") but not reported";
  ASSERT_LT(sink.events.size(), static_cast<size_t>(n));
  // Every dropped record is accounted for: seen + lost = produced.
  EXPECT_EQ(sink.events.size() + lost, static_cast<size_t>(n));
  // One "lost N events on cpuX" line per CPU that lost any.
  std::vector<std::string> expect;
  for (size_t cpu = 0; cpu < sum->lost_per_cpu.size(); ++cpu)
    if (sum->lost_per_cpu[cpu])
      expect.push_back("lost " + std::to_string(sum->lost_per_cpu[cpu]) + " events on cpu" + std::to_string(cpu));
  EXPECT_FALSE(expect.empty());
  EXPECT_EQ(sum->warnings, expect);
  // What survived is still in call order.
  for (size_t k = 1; k < sink.events.size(); ++k)
    ASSERT_LT(sink.events[k - 1].field("i")->value.i, sink.events[k].field("i")->value.i);
}

TEST_F(StreamTest, CommandThatCannotRunIsAnErrorAndLeavesNothing) {
  SessionOptions o;
  o.events = {probe_->pattern()};
  o.instance_name = instance_name_;
  o.command = {"/nonexistent/kpp-no-such-program"};
  CollectSink sink;
  auto sum = run_session(o, {&sink});
  ASSERT_FALSE(sum);
  EXPECT_NE(sum.error().message.find("cannot run '/nonexistent/kpp-no-such-program'"), std::string::npos)
      << sum.error().message;
}

TEST_F(StreamTest, PrintersShowRealEventsWithTypedValues) {
  CollectSink sink;
  auto sum = run_session(session_for(5), {&sink});
  ASSERT_TRUE(sum) << sum.error().message;
  std::vector<Hit> truth = test::parse_fixture_output(test::read_file(out_path_));
  ASSERT_EQ(sink.events.size(), 5u);
  ASSERT_EQ(truth.size(), 5u);
  // Text: the values as the fixture printed them, strings quoted, tag in hex.
  std::string line = format_event_text(sink.events[0]);
  char expect[160];
  std::snprintf(expect, sizeof expect, "kpp_stream_fixt-%d %s:hit i=%ld sq=%lu name=\"%s\" tag=0x%lx", sum->command_pid,
                probe_->group().c_str(), truth[0].i, truth[0].sq, truth[0].name.c_str(), truth[0].tag);
  EXPECT_NE(line.find(expect), std::string::npos) << line;
  std::snprintf(expect, sizeof expect, "hit: i=%ld sq=%lu name=\"%s\" tag=0x%lx", truth[1].i, truth[1].sq,
                truth[1].name.c_str(), truth[1].tag);
  EXPECT_EQ(format_event_short(sink.events[1]), expect);

  // JSON: parsed back by an independent parser (python's json module).
  std::string json_path = out_path_ + ".json";
  {
    std::FILE *f = std::fopen(json_path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    for (const auto &e : sink.events) std::fprintf(f, "%s\n", format_event_json(e).c_str());
    std::fclose(f);
  }
  test::CommandRun parsed = test::run_command(
      "/usr/bin/python3 -c 'import json,sys\n"
      "for l in open(sys.argv[1]):\n"
      "  o=json.loads(l); f=o[\"fields\"]\n"
      "  assert all(type(f[k]) is int for k in (\"i\",\"sq\",\"tag\")) and type(f[\"name\"]) is str\n"
      "  print(\"hit i=%d sq=%d name=%s tag=0x%x\" % (f[\"i\"], f[\"sq\"], f[\"name\"], f[\"tag\"]), o[\"event\"], o[\"pid\"], o[\"comm\"], o[\"cpu\"], o[\"time_ns\"])' " +
          json_path);
  std::remove(json_path.c_str());
  ASSERT_EQ(parsed.status, 0) << parsed.out;
  std::istringstream lines(parsed.out);
  std::string l;
  for (size_t k = 0; k < truth.size(); ++k) {
    ASSERT_TRUE(std::getline(lines, l));
    std::snprintf(expect, sizeof expect, "hit i=%ld sq=%lu name=%s tag=0x%lx %s:hit %d kpp_stream_fixt %d %llu", truth[k].i,
                  truth[k].sq, truth[k].name.c_str(), truth[k].tag, probe_->group().c_str(), sum->command_pid,
                  sink.events[k].cpu, static_cast<unsigned long long>(sink.events[k].time_ns));
    EXPECT_EQ(l, expect);
  }
}

}  // namespace
}  // namespace kpp
