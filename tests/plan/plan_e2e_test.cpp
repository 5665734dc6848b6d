// The install's promises, through the real binary on real uprobes (root):
// a hostile path writes nothing, an --add is all or nothing whatever signal
// comes when, two adds of one name never share an event, -d reports each
// event it could not remove, and -l prints perf's own lines with each
// probe's own hits. Every test uses its own groups kpptest_plan_<pid>_<n>*
// and removes them through tracefs itself, also when it fails.
#include <fcntl.h>
#include <signal.h>
#include <cerrno>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/run_program.h"

namespace {

const std::string kpp_bin = KPP_BIN;
const std::string fixture = std::string(KPP_E2E_FIXTURE_DIR) + "/e2e_fixture_gcc_O0";
const std::string tracefs = "/sys/kernel/tracing";

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

run_result kpp(std::vector<std::string> args) {
  args.insert(args.begin(), kpp_bin);
  return run_program(args);
}

std::string describe(const run_result &r) {
  return "exit " + std::to_string(r.status) + "\n--- stdout:\n" + r.out + "--- stderr:\n" + r.err;
}

bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// "GROUP/EVENT" of every uprobe_events line whose group starts with `prefix`.
std::vector<std::string> events_with_group_prefix(const std::string &prefix) {
  std::vector<std::string> out;
  std::istringstream lines(slurp(tracefs + "/uprobe_events"));
  for (std::string line; std::getline(lines, line);)
    if (line.size() > 2 && line.compare(2, prefix.size(), prefix) == 0) out.push_back(line.substr(2, line.find(' ') - 2));
  return out;
}

// One write(2) of `text` to a tracefs file (streams may seek first, which tracefs refuses).
bool write_tracefs(const std::string &file, const std::string &text, int flags) {
  int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC | flags);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// Disables and removes what is left of every group starting with `prefix`.
void remove_groups(const std::string &prefix) {
  for (const std::string &ev : events_with_group_prefix(prefix)) {
    write_tracefs(tracefs + "/events/" + ev + "/enable", "0", O_TRUNC);
    EXPECT_TRUE(write_tracefs(tracefs + "/uprobe_events", "-:" + ev + "\n", O_APPEND)) << "cannot remove " << ev;
  }
}

// Starts the tool with stdout to /dev/null and stderr to `err` (or
// /dev/null), signals at their defaults and unblocked; returns its pid.
pid_t spawn_quiet(std::vector<std::string> args, const std::string &err = "/dev/null") {
  args.insert(args.begin(), kpp_bin);
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, stops;
  sigemptyset(&none);
  sigemptyset(&stops);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &stops);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ) != 0) pid = -1;
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

int wait_status(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

class PlanE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to add uprobes";
    if (access((tracefs + "/uprobe_events").c_str(), W_OK) != 0) GTEST_SKIP() << "no writable " << tracefs;
    if (access(fixture.c_str(), X_OK) != 0) GTEST_SKIP() << "fixture " << fixture << " not built";
    static int n = 0;
    group_ = "kpptest_plan_" + std::to_string(getpid()) + "_" + std::to_string(n++);
  }
  void TearDown() override {
    if (!group_.empty()) remove_groups(group_);
  }
  std::string group_;
};

// The issue's injection: a newline in -x's path would end our command and
// start another. The path is refused, naming it; nothing at all is written.
TEST_F(PlanE2e, ANewlineInThePathWritesNothing) {
  std::string root = "/tmp/" + group_;
  std::string dir = root + "/d:0x1159\np:" + group_ + "x/mid " + root + "/victim:0x116a #";
  std::filesystem::create_directories(dir);
  std::string prog = dir + "/prog";
  std::filesystem::copy_file(fixture, prog);
  chmod(prog.c_str(), 0755);
  for (const char *mode : {"-a", "-D"}) {
    run_result r = kpp({"-x", prog, mode, group_ + ":e=walk"});
    EXPECT_NE(r.status, 0) << mode << ": " << describe(r);
    EXPECT_TRUE(has(r.err, "newline")) << describe(r);
    EXPECT_TRUE(has(r.err, "d:0x1159\\np:")) << "the message names the path: " << describe(r);
    EXPECT_EQ(r.out, "") << "-D prints no definition";
  }
  EXPECT_TRUE(events_with_group_prefix(group_).empty()) << "neither our probe nor the injected one";
  // A space, which the kernel splits on too.
  std::string spaced = root + "/a b";
  std::filesystem::create_directories(spaced);
  std::filesystem::copy_file(fixture, spaced + "/prog");
  run_result r = kpp({"-x", spaced + "/prog", "-a", group_ + ":e=walk"});
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.err, "a space")) << describe(r);
  EXPECT_TRUE(events_with_group_prefix(group_).empty());
  std::filesystem::remove_all(root);
}

// A refusal is explained with the kernel's reason for OUR command: a stale
// error another command left in error_log is not taken for it, and the
// probes written before the refused one are removed again.
TEST_F(PlanE2e, TheKernelsReasonIsTheOneForOurCommand) {
  // Another program's failed command, logged just before ours.
  write_tracefs(tracefs + "/uprobe_events", "p:" + group_ + "stale/e /nonexistent/kpp:0x10\n", O_APPEND);
  ASSERT_TRUE(has(slurp(tracefs + "/error_log"), group_ + "stale/e")) << "the stale line is in error_log";
  run_result r = kpp({"-x", fixture, "-a", group_ + ":a=walk", "-a", group_ + ":b=walk x=%zz"});
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_TRUE(has(r.err, "the kernel refused " + group_ + ":b")) << describe(r);
  EXPECT_TRUE(has(r.err, "): Invalid register name")) << "the reason logged for our command: " << describe(r);
  EXPECT_FALSE(has(r.err, "Failed to find the given file")) << describe(r);
  EXPECT_TRUE(events_with_group_prefix(group_).empty()) << "a was removed again";
}

// Ctrl-C, SIGTERM or SIGHUP at any moment of a 150-probe --add: afterwards
// there are all 150 probes or none.
TEST_F(PlanE2e, SignalsAtRandomMomentsLeaveAllOrNothing) {
  constexpr int probes = 150, trials = 24;
  std::vector<std::string> args{"-q", "-x", fixture};
  for (int i = 0; i < probes; ++i) {
    args.push_back("-a");
    args.push_back(group_ + ":e" + std::to_string(i) + "=walk");
  }
  auto started = std::chrono::steady_clock::now();
  pid_t pid = spawn_quiet(args);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(wait_status(pid), 0);
  auto whole = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(events_with_group_prefix(group_ + "/").size(), size_t(probes));
  remove_groups(group_);
  long span_us = std::chrono::duration_cast<std::chrono::microseconds>(whole).count();
  std::mt19937 random(static_cast<unsigned>(getpid()));
  int none = 0, all = 0, signalled = 0, during_write = 0;
  const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  std::string err = "/tmp/" + group_ + ".err";
  for (int t = 0; t < trials; ++t) {
    pid = spawn_quiet(args, err);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::microseconds(random() % (span_us + 1)));
    kill(pid, signals[t % 3]);
    if (wait_status(pid) >= 128) ++signalled;
    // Held back while the probes were written, then all removed again.
    if (has(slurp(err), "interrupted by")) ++during_write;
    size_t left = events_with_group_prefix(group_ + "/").size();
    EXPECT_TRUE(left == 0 || left == size_t(probes)) << "trial " << t << ": " << left << " probes left";
    (left == 0 ? none : all) += 1;
    remove_groups(group_);
  }
  unlink(err.c_str());
  std::printf("150-probe --add in %ld ms; %d trials: %d ended by the signal (%d of them while writing), "
              "%d left nothing, %d left all\n",
              span_us / 1000, trials, signalled, during_write, none, all);
}

// Two adds of one GROUP:EVENT at different places at the same time: one
// wins, the other is refused as a clash; the event has one place.
TEST_F(PlanE2e, ConcurrentAddsOfOneNameNeverMerge) {
  for (int t = 0; t < 10; ++t) {
    std::string name = group_ + ":same" + std::to_string(t);
    pid_t a = spawn_quiet({"-q", "-x", fixture, "-a", name + "=walk"});
    pid_t b = spawn_quiet({"-q", "-x", fixture, "-a", name + "=scale"});
    ASSERT_GT(a, 0);
    ASSERT_GT(b, 0);
    int sa = wait_status(a), sb = wait_status(b);
    EXPECT_EQ((sa == 0) + (sb == 0), 1) << "trial " << t << ": exits " << sa << " and " << sb;
    std::string slash = group_ + "/same" + std::to_string(t);
    size_t places = 0;
    for (const std::string &ev : events_with_group_prefix(group_)) places += ev == slash;
    EXPECT_EQ(places, 1u) << "trial " << t;
  }
  // The loser says why.
  ASSERT_EQ(kpp({"-q", "-x", fixture, "-a", group_ + ":taken=walk"}).status, 0);
  run_result second = kpp({"-x", fixture, "-a", group_ + ":taken=scale"});
  EXPECT_NE(second.status, 0);
  EXPECT_TRUE(has(second.err, "already exists")) << describe(second);
}

// -d over several matches: the enabled one is reported with why, the others
// go, and the command fails.
TEST_F(PlanE2e, DeleteReportsEachEventItCouldNotRemove) {
  ASSERT_EQ(kpp({"-q", "-x", fixture, "-a", group_ + ":a=walk", "-a", group_ + ":b=scale", "-a", group_ + ":c=main"})
                .status,
            0);
  ASSERT_EQ(kpp({"-q", "--enable", group_ + ":b"}).status, 0);
  run_result del = kpp({"-d", group_ + ":*"});
  EXPECT_NE(del.status, 0) << describe(del);
  EXPECT_TRUE(has(del.err, "cannot remove " + group_ + ":b: enabled in the top level")) << describe(del);
  EXPECT_TRUE(has(del.err, "Removed event: " + group_ + ":a")) << describe(del);
  EXPECT_TRUE(has(del.err, "Removed event: " + group_ + ":c")) << describe(del);
  EXPECT_EQ(events_with_group_prefix(group_), std::vector<std::string>{group_ + "/b"});
  // Two patterns, one matching nothing: the other still goes, and the exit says so.
  ASSERT_EQ(kpp({"-q", "--disable", group_ + ":b"}).status, 0);
  run_result two = kpp({"-d", group_ + ":nothing", "-d", group_ + ":b"});
  EXPECT_NE(two.status, 0);
  EXPECT_TRUE(has(two.err, "does not hit")) << describe(two);
  EXPECT_TRUE(events_with_group_prefix(group_).empty());
}

// -l is perf probe -l's line, byte for byte, in perf's order, with group
// globs; compared with perf itself on the same probes.
TEST_F(PlanE2e, ListIsPerfsLine) {
  if (access("/usr/bin/perf", X_OK) != 0) GTEST_SKIP() << "perf is not installed (linux-perf)";
  // File order (e0..e3) is not perf's order: return probes sort after entries.
  // -f: walk+4 need not start a line (perf places it as it is given).
  ASSERT_EQ(kpp({"-q", "-f", "-x", fixture, "-a", group_ + ":e0=scale%return $retval", "-a", group_ + ":e1=scale a b",
                 "-a", group_ + ":e2=walk", "-a", group_ + ":e3=walk+4"})
                .status,
            0);
  run_result perf = run_program({"/usr/bin/perf", "probe", "-l", group_ + "*"});
  ASSERT_EQ(perf.status, 0) << describe(perf);
  ASSERT_NE(perf.out, "") << describe(perf);
  run_result ours = kpp({"-l", group_ + "*"});
  ASSERT_EQ(ours.status, 0) << describe(ours);
  EXPECT_EQ(ours.out, perf.out);
  EXPECT_TRUE(has(ours.out, "scale%return@")) << ours.out;
  EXPECT_EQ(kpp({"-l", group_ + ":*"}).out, perf.out);
}

// Two groups with one event name on one program: each probe's hits are its own.
TEST_F(PlanE2e, HitsBelongToTheirOwnProbe) {
  std::string one = group_ + "a", two = group_ + "b";
  ASSERT_EQ(kpp({"-q", "-x", fixture, "-a", one + ":same=walk", "-a", two + ":same=scale"}).status, 0);
  ASSERT_EQ(kpp({"-q", "--enable", two + ":same"}).status, 0);
  ASSERT_EQ(run_program({fixture}).status, 0);  // walks 2 rounds of 3 items: scale is called 6 times
  run_result l = kpp({"-l", group_ + "*"});
  ASSERT_EQ(l.status, 0) << describe(l);
  std::istringstream lines(l.out);
  int seen = 0;
  for (std::string line; std::getline(lines, line);) {
    if (has(line, one + ":same")) {
      EXPECT_FALSE(has(line, "hits=")) << "never enabled, never hit: " << line;
      ++seen;
    } else if (has(line, two + ":same")) {
      EXPECT_TRUE(has(line, " hits=6")) << line;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 2) << l.out;
}

}  // namespace

namespace {

// Small ones (issue 12 item 7): checked through -D, which writes nothing.
class SmallOnes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(fixture.c_str(), X_OK) != 0) GTEST_SKIP() << "fixture " << fixture << " not built";
  }
};

TEST_F(SmallOnes, AnEmptyExecPathIsAnError) {
  run_result r = kpp({"-x", "", "-D", "walk"});
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_TRUE(has(r.err, "-x: the program path is empty")) << describe(r);
  EXPECT_EQ(r.out, "");
}

// An index whose byte offset overflows is refused, not wrapped.
TEST_F(SmallOnes, AnIndexThatOverflowsIsRefused) {
  for (const char *spec : {"walk p[9223372036854775807]", "walk p->tag[4611686018427387904]"}) {
    run_result r = kpp({"-x", fixture, "-D", spec});
    EXPECT_EQ(r.status, 1) << spec << ": " << describe(r);
    EXPECT_TRUE(has(r.err, "is too large")) << describe(r);
  }
  run_result fine = kpp({"-x", fixture, "-D", "walk p->tag[3]"});
  EXPECT_EQ(fine.status, 0) << describe(fine);
}

// Bare :s, :u, :x take the width from DWARF: scale(int a, int b) returns int.
TEST_F(SmallOnes, BareTypesTakeTheirWidthFromDwarf) {
  run_result r = kpp({"-x", fixture, "-D", "scale a:s b:x"});
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_TRUE(has(r.out, ":s32 ")) << r.out;
  EXPECT_TRUE(has(r.out, ":x32\n")) << r.out;
  run_result ret = kpp({"-x", fixture, "-D", "scale%return $retval:u"});
  ASSERT_EQ(ret.status, 0) << describe(ret);
  EXPECT_TRUE(has(ret.out, "=$retval:u32\n")) << ret.out;
  if (access("/usr/bin/perf", X_OK) == 0) {
    run_result perf = run_program({"/usr/bin/perf", "probe", "-x", fixture, "-D", "scale a:s b:x"});
    if (perf.status == 0) EXPECT_EQ(r.out, perf.out) << "perf probe -D gives the same definition";
  }
}

// -L FILE:1+10000000 ends with the file, at once; near INT_MAX nothing wraps.
TEST_F(SmallOnes, LineRangesAreBounded) {
  auto started = std::chrono::steady_clock::now();
  run_result r = kpp({"-x", fixture, "-L", "e2e_fixture.c:1+10000000"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(r.status, 0) << describe(r);
  EXPECT_LT(seconds, 5.0);
  EXPECT_TRUE(has(r.out, "e2e_fixture: total")) << "the file's last lines are shown";
  // A range past the file shows none of it: nothing wrapped round to its start.
  for (const char *range : {"e2e_fixture.c:2147483000+1000", "e2e_fixture.c:99999999+99999999"}) {
    started = std::chrono::steady_clock::now();
    run_result wrapped = kpp({"-x", fixture, "-L", range});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 5.0) << range;
    EXPECT_FALSE(has(wrapped.out, "End-to-end fixture")) << range << ": " << describe(wrapped);
    EXPECT_FALSE(has(wrapped.out, "KEEP int walk(")) << range << ": " << describe(wrapped);
  }
}

// FUNC globs work as perf's: one probe per matching function, named after it.
TEST_F(SmallOnes, FunctionGlobsMatchLikePerf) {
  run_result glob = kpp({"-x", fixture, "-D", "wal*"});
  run_result plain = kpp({"-x", fixture, "-D", "walk"});
  ASSERT_EQ(glob.status, 0) << describe(glob);
  EXPECT_EQ(glob.out, plain.out);
  run_result none = kpp({"-x", fixture, "-D", "nosuchfn*"});
  EXPECT_EQ(none.status, 1);
  EXPECT_TRUE(has(none.err, "no function matches 'nosuchfn*'")) << describe(none);
}

}  // namespace
