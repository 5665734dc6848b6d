// The one child runner: what each caller asks of it (captured output, a
// child held before exec, default signals, /dev/null streams) and how a
// child's end and a failed exec read.
#include <gtest/gtest.h>

#include <signal.h>

#include "util/child_process.h"

namespace kpp {
namespace {

using Stream = ChildOptions::Stream;

TEST(ChildProcess, CapturesStdoutAndTheExitCode) {
  ChildProcess child;
  ChildOptions o;
  o.out = Stream::Capture;
  ASSERT_TRUE(child.start({"sh", "-c", "echo hello; exit 7"}, o));
  EXPECT_EQ(child.read_output(1024), "hello\n");
  EXPECT_TRUE(child.reap(true));
  EXPECT_EQ(child.end().exit_code, 7);
  EXPECT_EQ(child.end().describe(), "exited 7");
  EXPECT_EQ(child.end().status(), 7);
}

TEST(ChildProcess, KeepsTheFirstBytesOfALongOutputAndReadsItToTheEnd) {
  ChildProcess child;
  ChildOptions o;
  o.out = Stream::Capture;
  // 200 kB: more than a pipe holds, so the child would block if we stopped reading.
  ASSERT_TRUE(child.start({"sh", "-c", "head -c 200000 /dev/zero"}, o));
  size_t kept = child.read_output(10).size();  // whole reads until the cap is reached
  EXPECT_GE(kept, 10u);
  EXPECT_LE(kept, 4096u);
  EXPECT_TRUE(child.reap(true));
  EXPECT_EQ(child.end().describe(), "exited 0");
}

TEST(ChildProcess, AProgramNotInPathIsAnErrorNamingIt) {
  ChildProcess child;
  Status s = child.start({"kpp-no-such-program"}, ChildOptions{});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "cannot run 'kpp-no-such-program': No such file or directory");
  EXPECT_EQ(s.error().hint, "check the command name and PATH");
}

TEST(ChildProcess, AHeldChildRunsNothingBeforeRelease) {
  ChildProcess child;
  ChildOptions o;
  o.held = true;
  o.out = Stream::Capture;
  ASSERT_TRUE(child.start({"sh", "-c", "echo ran"}, o));
  EXPECT_TRUE(child.held());
  EXPECT_GE(child.wake_fd(), 0);
  usleep(100000);
  EXPECT_FALSE(child.reap(false)) << "it ran before release()";
  ASSERT_TRUE(child.release());
  EXPECT_FALSE(child.held());
  EXPECT_EQ(child.read_output(64), "ran\n");
  EXPECT_TRUE(child.reap(true));
  EXPECT_EQ(child.wake_fd(), -1);
}

TEST(ChildProcess, AHeldChildsFailedExecIsReportedAtRelease) {
  ChildProcess child;
  ChildOptions o;
  o.held = true;
  ASSERT_TRUE(child.start({"kpp-no-such-program"}, o));
  Status s = child.release();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "cannot run 'kpp-no-such-program': No such file or directory");
  EXPECT_TRUE(child.end().ended) << "reaped with the error";
}

TEST(ChildProcess, DefaultSignalsUndoAnIgnoredSignal) {
  struct sigaction ignore {}, saved {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ignore, &saved);
  for (bool defaults : {false, true}) {
    ChildProcess child;
    ChildOptions o;
    o.default_signals = defaults;
    ASSERT_TRUE(child.start({"sh", "-c", "kill -TERM $$; exit 3"}, o));
    EXPECT_TRUE(child.reap(true));
    EXPECT_EQ(child.end().describe(), defaults ? "killed by SIGTERM" : "exited 3");
    if (defaults) EXPECT_EQ(child.end().status(), 128 + SIGTERM);
  }
  sigaction(SIGTERM, &saved, nullptr);
}

TEST(ChildProcess, NullStreamsAndStdoutOnStderr) {
  ChildProcess reader;
  ChildOptions o;
  o.in = Stream::Null;
  o.out = Stream::Capture;
  ASSERT_TRUE(reader.start({"cat"}, o));  // stdin at its end at once: no wait for a terminal
  EXPECT_EQ(reader.read_output(64), "");
  EXPECT_TRUE(reader.reap(true));
  EXPECT_EQ(reader.end().exit_code, 0);

  // Where fd 1 points, told by the exit code: 5 when the test holds.
  ChildProcess quiet;
  o.out = o.err = Stream::Null;
  ASSERT_TRUE(quiet.start({"sh", "-c", "[ \"$(readlink /proc/$$/fd/1)\" = /dev/null ] && exit 5"}, o));
  EXPECT_TRUE(quiet.reap(true));
  EXPECT_EQ(quiet.end().exit_code, 5) << "stdout is not /dev/null";

  ChildProcess onto_stderr;
  o = ChildOptions{};
  o.out = Stream::Stderr;
  ASSERT_TRUE(onto_stderr.start({"sh", "-c", "[ \"$(readlink /proc/$$/fd/1)\" = \"$(readlink /proc/$$/fd/2)\" ] && exit 5"}, o));
  EXPECT_TRUE(onto_stderr.reap(true));
  EXPECT_EQ(onto_stderr.end().exit_code, 5) << "stdout is not our stderr";
}

TEST(ChildProcess, TheDestructorEndsAChildStillRunning) {
  pid_t pid;
  {
    ChildProcess child;
    ASSERT_TRUE(child.start({"sleep", "60"}, ChildOptions{}));
    pid = child.pid();
  }
  EXPECT_NE(kill(pid, 0), 0) << "the child outlived its owner";
}

}  // namespace
}  // namespace kpp
