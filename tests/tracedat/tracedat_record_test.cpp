// Real uprobe recordings into trace.dat, read back by the real readers:
// `trace-cmd report` (subprocess) and libtracecmd (tracecmd_open +
// iteration, the loader KernelShark uses). Plus SIGINT during a session.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <thread>

#include "src/output/printer_sink.h"
#include "src/stream/session.h"
#include "src/tracedat/tracedat_writer.h"
#include "tests/stream/uprobe_helper.h"
#include "tests/tracedat/recording_test.h"
#include "tests/tracedat/tracedat_readers.h"

namespace kpp {
namespace {

using test::Hit;

// The fixture values of every event the stream delivered.
class CollectSink : public test::CollectSink {
 public:
  std::vector<Hit> hits() const {
    std::vector<Hit> out;
    for (const auto &e : events) out.push_back(test::hit_of(e));
    return out;
  }
};

using test::LibReadResult;
using test::libtracecmd_hits;

// The fixture values `trace-cmd report` prints for our event, in file order.
std::vector<Hit> report_hits(const std::string &path, int *status, std::string *text) {
  return test::hits_of(test::trace_cmd_report(path, status, text));
}

class TraceDatTest : public test::RecordingTest {
 protected:
  // Runs a session in a child process, SIGINTs it after `after`, returns
  // the child's exit status (0 = run_session returned a summary).
  int interrupted_session(bool record) {
    pid_t child = fork();
    if (child == 0) {
      SessionOptions o;
      o.events = {probe_->pattern()};
      o.instance_name = instance_name_;
      o.command = {test::fixture_path(), "forever", base_ + ".started"};
      std::unique_ptr<TraceDatWriter> writer;
      std::FILE *text = nullptr;
      std::unique_ptr<PrinterSink> printer;
      std::vector<EventSink *> sinks;
      if (record) {
        auto w = TraceDatWriter::create(base_ + ".dat");
        if (!w) _exit(2);
        writer = std::move(*w);
        sinks.push_back(writer.get());
      } else {
        text = std::fopen((base_ + ".txt").c_str(), "w");
        printer = std::make_unique<PrinterSink>(PrintFormat::Text, text);
        sinks.push_back(printer.get());
      }
      auto sum = run_session(o, sinks);
      if (text) std::fclose(text);
      _exit(sum && sum->interrupted && sum->signal == SIGINT ? 0 : 3);
    }
    // Interrupt once the traced command has made 50 calls (it says so by
    // creating a file), however slow a loaded machine is.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (access((base_ + ".started").c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(child, SIGINT);
    int status = 0;
    waitpid(child, &status, 0);
    return status;
  }
};

TEST_F(TraceDatTest, RecordedFileIsReadByTraceCmdReportAndLibtracecmdWithTheSameValues) {
  const int n = 3000;
  SessionOptions o;
  o.events = {probe_->pattern()};
  o.instance_name = instance_name_;
  o.command = {"/bin/sh", "-c", "exec " + test::fixture_path() + " " + std::to_string(n) + " > " + base_ + ".out"};
  auto writer = TraceDatWriter::create(base_ + ".dat");
  ASSERT_TRUE(writer) << writer.error().message;
  CollectSink stream_view;
  auto sum = run_session(o, {writer->get(), &stream_view});
  ASSERT_TRUE(sum) << sum.error().message;
  EXPECT_GT((*writer)->pages(), 0u);

  std::vector<Hit> truth = test::parse_fixture_output(test::read_file(base_ + ".out"));
  ASSERT_EQ(truth.size(), static_cast<size_t>(n));
  EXPECT_EQ(stream_view.hits(), truth);
  EXPECT_TRUE(stream_view.lost.empty());

  int status = -1;
  std::string text;
  std::vector<Hit> reported = report_hits(base_ + ".dat", &status, &text);
  EXPECT_EQ(status, 0) << text.substr(0, 2000);
  EXPECT_EQ(reported.size(), truth.size()) << text.substr(0, 2000);
  EXPECT_TRUE(reported == truth) << "trace-cmd report disagrees with the fixture";
  // No complaints from the reader (it warns about options and formats it
  // does not understand, and about bad page data).
  for (const char *word : {"warning", "Warning", "error", "failed", "unknown option"})
    EXPECT_EQ(text.find(word), std::string::npos) << word << " in: " << text.substr(0, 1500);
  // The comm comes from the recorded cmdlines.
  EXPECT_NE(text.find("kpp_stream_fixt-" + std::to_string(sum->command_pid)), std::string::npos) << text.substr(0, 600);

  LibReadResult lib = libtracecmd_hits(base_ + ".dat");
  ASSERT_TRUE(lib.opened) << "tracecmd_open refused the file";
  EXPECT_EQ(lib.hits.size(), truth.size());
  EXPECT_TRUE(lib.hits == truth) << "libtracecmd disagrees with the fixture";
  EXPECT_TRUE(std::is_sorted(lib.ts.begin(), lib.ts.end()));
}

TEST_F(TraceDatTest, SigintDuringRecordLeavesNoInstanceAndAReadableFile) {
  int status = interrupted_session(true);
  ASSERT_TRUE(WIFEXITED(status)) << "session process died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "run_session did not report a clean SIGINT stop";
  int rc = -1;
  std::string text;
  std::vector<Hit> reported = report_hits(base_ + ".dat", &rc, &text);
  EXPECT_EQ(rc, 0) << text.substr(0, 2000);
  ASSERT_GE(reported.size(), 50u) << text.substr(0, 2000);
  // The forever loop calls with i = 0, 1, 2, ...: every one recorded, in order.
  for (size_t k = 0; k < reported.size(); ++k) ASSERT_EQ(reported[k].i, static_cast<long>(k));
  EXPECT_TRUE(libtracecmd_hits(base_ + ".dat").opened);
}

TEST_F(TraceDatTest, SigintDuringTraceLeavesNoInstanceAndFlushedOutput) {
  int status = interrupted_session(false);
  ASSERT_TRUE(WIFEXITED(status)) << "session process died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::string text = test::read_file(base_ + ".txt");
  std::istringstream in(text);
  std::string line;
  long expect = 0;
  while (std::getline(in, line)) {
    auto at = line.find(" i=");
    ASSERT_NE(at, std::string::npos) << line;
    EXPECT_EQ(std::atol(line.c_str() + at + 3), expect) << line;
    ++expect;
  }
  EXPECT_GE(expect, 50);
}

}  // namespace
}  // namespace kpp
