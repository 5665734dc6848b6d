// A GoogleTest fixture for tests that record real uprobe events: a uprobe
// of its own on the stream fixture (skips when the kernel or trace-cmd
// cannot run them), a session instance name of its own, and, on teardown --
// pass or fail -- a check that neither is left behind, then removal of the
// probe and the test's files (base_ + .dat/.out/.txt/.started).
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "src/stream/session.h"
#include "src/tracedat/tracedat_writer.h"
#include "tests/stream/uprobe_helper.h"

namespace kpp::test {

// Gives each event one user frame on its way to the writer, as a session
// unwinding user stacks from DWARF would (record --stack), so that the file
// carries the user-stacks option (user_stack_table.h) without a real unwinder.
class WithUserStacks : public EventSink {
 public:
  explicit WithUserStacks(EventSink *writer) : writer_(writer) {}
  Status on_start(const StreamInfo &info) override { return writer_->on_start(info); }
  bool wants_pages() const override { return true; }
  Status on_page(int cpu, std::span<const uint8_t> page) override { return writer_->on_page(cpu, page); }
  Status on_event(const Event &event) override {
    Event with = event;
    StackFrame f;
    f.ip = 0x401000 + event.time_ns % 3;
    f.user = true;
    f.sym = "hit";
    f.file = "stream_fixture.c";
    f.line = 10 + static_cast<int>(event.time_ns % 3);
    with.stack.push_back(f);
    return writer_->on_event(with);
  }
  void on_lost(int cpu, int64_t count) override { writer_->on_lost(cpu, count); }
  Status on_finish() override { return writer_->on_finish(); }

 private:
  EventSink *writer_;
};

class RecordingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = kernel_skip_reason(); !why.empty()) GTEST_SKIP() << why;
    if (access("/usr/bin/trace-cmd", X_OK) != 0) GTEST_SKIP() << "trace-cmd is not installed";
    probe_ = std::make_unique<FixtureUprobe>(fixture_path(), "tracedat");
    if (!probe_->ok()) GTEST_SKIP() << "cannot create the fixture uprobe: " << probe_->error();
    base_ = "/tmp/kpp-tracedat-test-" + std::to_string(getpid());
    instance_name_ = "kpp-test-" + std::to_string(getpid());
  }
  void TearDown() override {
    if (probe_) {
      auto names = tracefs_instance_names();
      EXPECT_EQ(std::count(names.begin(), names.end(), instance_name_), 0) << "instance left behind";
      if (probe_->ok()) {
        EXPECT_EQ(top_level_enable(probe_->group(), "hit"), "0");
      }
    }
    probe_.reset();  // also proves nothing still uses the event (EBUSY otherwise)
    for (const char *ext : {".dat", ".out", ".txt", ".started"}) std::remove((base_ + ext).c_str());
  }

  // Records `n` calls of the fixture into base_.dat, written as `file` asks;
  // returns what the fixture printed about its calls (the truth), empty
  // after a failed ADD_FAILURE.
  std::vector<Hit> record_fixture_calls(int n, TraceDatOptions file) {
    SessionOptions o;
    o.events = {probe_->pattern()};
    o.instance_name = instance_name_;
    o.command = {"/bin/sh", "-c", "exec " + fixture_path() + " " + std::to_string(n) + " > " + base_ + ".out"};
    auto writer = TraceDatWriter::create(base_ + ".dat", file);
    if (!writer) {
      ADD_FAILURE() << writer.error().message;
      return {};
    }
    WithUserStacks with_stacks(writer->get());
    EventSink *sink = file.user_stacks ? static_cast<EventSink *>(&with_stacks) : writer->get();
    auto sum = run_session(o, {sink});
    if (!sum) {
      ADD_FAILURE() << sum.error().message;
      return {};
    }
    return parse_fixture_output(read_file(base_ + ".out"));
  }

  std::unique_ptr<FixtureUprobe> probe_;
  std::string base_, instance_name_;
};

}  // namespace kpp::test
