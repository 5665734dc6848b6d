// Screen tests: the real kprobe-probe live in tmux (send-keys to type,
// capture-pane to read) on the demo program, whose walk:5 fires exactly 6
// times. Each test has its own probe group (kpptest_tui_<pid>_<n>) and tmux
// server, and removes what it added also when it fails. Needs root, tmux
// and uprobes; skipped otherwise.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/common/run_command.h"

namespace {

const std::string tracing = "/sys/kernel/tracing";

// What `cmd` prints (tmux, trace-cmd, kprobe-probe); its exit status is not needed.
std::string run(const std::string &cmd) { return kpp::test::run_command(cmd).out; }

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> words_of(const std::string &line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class LiveScreen : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (uprobes, tracefs instances)";
    if (run("command -v tmux").empty()) GTEST_SKIP() << "needs tmux";
    if (!exists(tracing + "/uprobe_events")) GTEST_SKIP() << "kernel has no uprobe_events";
    static int n = 0;
    group_ = "kpptest_tui_" + std::to_string(getpid()) + "_" + std::to_string(++n);
    tmux_ = "tmux -L " + group_ + " -f /dev/null ";
    dir_ = "/tmp/" + group_;
    run("mkdir -p " + dir_);
  }

  void TearDown() override {
    if (group_.empty()) return;
    run(tmux_ + "kill-server 2>/dev/null");  // SIGHUP: the view cleans up itself
    std::string inst = tracing + "/instances/" + instance_;
    wait_for([&] { return instance_.empty() || !exists(inst); }, 5000);
    // If it could not, remove what it left so the machine stays clean.
    if (!instance_.empty() && exists(inst)) run("rmdir " + inst + " 2>/dev/null");
    run(std::string(KPP_BINARY) + " -q -d '" + group_ + ":*' 2>/dev/null");
    run("rm -rf " + dir_);
  }

  // Starts `args` of kprobe-probe in a cols x rows tmux pane; stderr and
  // the exit code go to files in dir_; `then` runs in the pane after it.
  void start(const std::string &args, int cols = 80, int rows = 24, const std::string &env = "",
             const std::string &then = "") {
    // \$?: the pane's shell expands it, not run()'s (which would write its own 0).
    std::string cmd = env + std::string(KPP_BINARY) + " " + args + " 2>" + dir_ + "/stderr; echo \\$? >" + dir_ + "/rc";
    if (!then.empty()) cmd += "; " + then;
    run(tmux_ + "new-session -d -s live -c " + dir_ + " -x " + std::to_string(cols) + " -y " + std::to_string(rows) +
        " \"" + cmd + "\"");
  }
  std::string live_demo_args() {
    return std::string("live -x ") + KPP_DEMO + " --add '" + group_ + ":w=walk:5 p->name:string i s' -- " + KPP_DEMO;
  }

  std::string screen() { return run(tmux_ + "capture-pane -p -t live 2>/dev/null"); }
  void keys(const std::string &k) { run(tmux_ + "send-keys -t live " + k); }
  bool alive() { return run(tmux_ + "has-session -t live 2>/dev/null && echo yes") == "yes\n"; }
  void resize(int cols, int rows) {
    run(tmux_ + "resize-window -t live -x " + std::to_string(cols) + " -y " + std::to_string(rows));
  }

  // `ms` is what a quiet machine needs; CI's two shared cores may take
  // several times that (a wait ends as soon as `ok` holds).
  bool wait_for(const std::function<bool()> &ok, int ms) {
    constexpr int kLoadedMachine = 4;
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms * kLoadedMachine);
    while (std::chrono::steady_clock::now() < end) {
      if (ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return ok();
  }

  // The probe's table row split in words, or empty.
  std::vector<std::string> row(const std::string &text) {
    for (const std::string &l : lines_of(text))
      if (l.find(":w ") != std::string::npos && l.find("walk:5@") != std::string::npos) return words_of(l);
    return {};
  }
  // Waits until the row shows `status` and `hits`; remembers the instance.
  bool shows(const std::string &status, const std::string &hits, int ms = 10000) {
    return wait_for(
        [&] {
          std::string s = screen();
          auto r = row(s);
          if (instance_.empty())
            for (const std::string &w : words_of(s))
              if (w.rfind("kprobe-probe-", 0) == 0) instance_ = w;
          return r.size() >= 4 && r[2] == status && r[3] == hits;
        },
        ms);
  }
  std::string enable_file() {
    std::string e = slurp(tracing + "/instances/" + instance_ + "/events/" + group_ + "/w/enable");
    return e.empty() ? e : e.substr(0, 1);
  }

  std::string group_, tmux_, dir_, instance_;
};

TEST_F(LiveScreen, TableShowsTheExactHitCount) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen() << slurp(dir_ + "/stderr");
  // The demo has exited: the count stays exactly 6 and the view stays.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto r = row(screen());
  ASSERT_GE(r.size(), 4u);
  EXPECT_EQ(r[3], "6");
  EXPECT_TRUE(alive());
  EXPECT_NE(screen().find("name=\"three\" i=2 s=3"), std::string::npos) << screen();
}

// The Kernel pane in the real binary: Shift-Tab from the table reaches it. This
// host's kernel has no hist triggers, so it says how to start one (its tables
// are tested from the 6.1 kernel's files: tests/live/kernel_histograms_test.cpp).
TEST_F(LiveScreen, KernelPaneIsReachedAndSaysHowToStartAHistogram) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  keys("BTab");
  EXPECT_TRUE(wait_for(
      [&] {
        std::string s = screen();
        return s.find("Kernel") != std::string::npos &&
               s.find("no kernel histogram running: start one with kprobe-probe hist") != std::string::npos;
      },
      5000))
      << screen();
}

TEST_F(LiveScreen, ToggleChangesTheViewAndTracefs) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  ASSERT_FALSE(instance_.empty()) << screen();
  EXPECT_EQ(enable_file(), "1");
  keys("Space");
  ASSERT_TRUE(shows("disabled", "6", 3000)) << screen();
  EXPECT_EQ(enable_file(), "0");
  keys("e");
  ASSERT_TRUE(shows("enabled", "6", 3000)) << screen();
  EXPECT_EQ(enable_file(), "1");
}

TEST_F(LiveScreen, FilterHidesLogLines) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  auto count = [&](const std::string &needle) {
    size_t n = 0;
    for (const std::string &l : lines_of(screen()))
      if (l.find(needle) != std::string::npos) ++n;
    return n;
  };
  EXPECT_EQ(count("name=\"one\""), 2u) << screen();
  keys("/ t h r e e Enter");
  ASSERT_TRUE(wait_for([&] { return count("name=\"one\"") == 0; }, 3000)) << screen();
  EXPECT_EQ(count("name=\"three\""), 2u) << screen();
  EXPECT_NE(screen().find("filter \"three\""), std::string::npos);
  keys("Escape");
  ASSERT_TRUE(wait_for([&] { return count("name=\"one\"") == 2; }, 3000)) << screen();
}

TEST_F(LiveScreen, ResizeKeepsTheLayout) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  auto layout_ok = [&](size_t rows, size_t cols) {
    auto ls = lines_of(screen());
    if (ls.size() != rows) return false;
    return ls[0].rfind(" live | kprobe-probe-", 0) == 0 && ls[1].rfind("EVENT", 0) == 0 &&
           ls[1].find("HISTORY") != std::string::npos && ls.back().rfind(" q quit", 0) == 0 &&
           ls[1].size() <= cols && row(screen()).size() >= 4;
  };
  EXPECT_TRUE(wait_for([&] { return layout_ok(24, 80); }, 3000)) << screen();
  resize(200, 60);
  ASSERT_TRUE(wait_for([&] { return layout_ok(60, 200) && screen().find("Latency") != std::string::npos; }, 3000))
      << screen();
  EXPECT_EQ(row(screen())[3], "6");
  resize(80, 24);
  EXPECT_TRUE(wait_for([&] { return layout_ok(24, 80) && screen().find("Latency") == std::string::npos; }, 3000))
      << screen();
}

TEST_F(LiveScreen, QuitLeavesNoInstanceAndNoProbe) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  ASSERT_FALSE(instance_.empty());
  EXPECT_TRUE(exists(tracing + "/instances/" + instance_));
  EXPECT_NE(slurp(tracing + "/uprobe_events").find(group_ + "/w "), std::string::npos);
  keys("q");
  ASSERT_TRUE(wait_for([&] { return !alive(); }, 5000));
  EXPECT_EQ(slurp(dir_ + "/rc"), "0\n") << slurp(dir_ + "/stderr");
  EXPECT_FALSE(exists(tracing + "/instances/" + instance_));
  EXPECT_EQ(slurp(tracing + "/uprobe_events").find(group_ + "/"), std::string::npos);
  EXPECT_NE(slurp(dir_ + "/stderr").find("6 events, 0 lost"), std::string::npos) << slurp(dir_ + "/stderr");
}

// live -p: the header names the process it follows (the test's own
// `sleep`), and says when it has exited; the view stays.
TEST_F(LiveScreen, PidIsNamedInTheHeaderUntilItExits) {
  pid_t sleeper = fork();
  if (sleeper == 0) {
    execl("/bin/sleep", "sleep", "60", static_cast<char *>(nullptr));
    _exit(127);
  }
  std::string pid = std::to_string(sleeper);
  wait_for([&] { return slurp("/proc/" + pid + "/comm") == "sleep\n"; }, 2000);
  start("live -p " + pid + " -x libc.so.6 --add '" + group_ + ":w=clock_nanosleep'", 120);
  bool named = wait_for([&] { return screen().find("pid " + pid + " (sleep)") != std::string::npos; }, 10000);
  std::string before = screen();
  kill(sleeper, SIGKILL);
  waitpid(sleeper, nullptr, 0);
  ASSERT_TRUE(named) << before << slurp(dir_ + "/stderr");
  EXPECT_TRUE(wait_for([&] { return screen().find("pid " + pid + " (sleep) exited") != std::string::npos; }, 5000))
      << screen();
  EXPECT_TRUE(alive());
  keys("q");
  ASSERT_TRUE(wait_for([&] { return !alive(); }, 5000));
  EXPECT_EQ(slurp(dir_ + "/rc"), "0\n") << slurp(dir_ + "/stderr");
}

// A process in a pid namespace of its own (unshare -p, as a container's):
// the header and each log line give both pids, the container's as the
// kernel has it (NSpid in /proc/PID/status).
TEST_F(LiveScreen, ContainersProcessShownWithBothPids) {
  if (access("/usr/bin/unshare", X_OK) != 0 || access("/usr/bin/python3", X_OK) != 0)
    GTEST_SKIP() << "needs unshare (util-linux) and python3";
  pid_t outer = fork();
  if (outer == 0) {
    execl("/usr/bin/unshare", "unshare", "-p", "-f", "--mount-proc", "/usr/bin/python3", "-c",
          "import time\nwhile True: time.sleep(0.05)", static_cast<char *>(nullptr));
    _exit(127);
  }
  // unshare's child is the namespace's first process (it runs python3).
  std::string host;
  wait_for([&] {
    std::istringstream children(slurp("/proc/" + std::to_string(outer) + "/task/" + std::to_string(outer) + "/children"));
    children >> host;
    return !host.empty() && slurp("/proc/" + host + "/comm") == "python3\n";
  }, 2000);
  std::smatch nspid;
  std::string status = host.empty() ? "" : slurp("/proc/" + host + "/status");
  bool found = std::regex_search(status, nspid, std::regex("NSpid:\\s+" + host + "\\s+(\\d+)"));
  std::string inner = found ? nspid[1].str() : "";
  if (found) start("live -p " + host + " -x libc.so.6 --add '" + group_ + ":w=clock_nanosleep'", 200, 30);
  bool header = found && wait_for([&] {
    return screen().find("pid " + inner + " in the container, " + host + " on the host (python3)") != std::string::npos;
  }, 10000);
  bool line = found && wait_for([&] {
    return screen().find(" python3-" + host + "(container:" + inner + ") " + group_ + ":w") != std::string::npos;
  }, 10000);
  std::string seen = screen();
  if (!host.empty()) kill(std::stoi(host), SIGKILL);  // the namespace's init: the namespace goes with it
  waitpid(outer, nullptr, 0);
  ASSERT_TRUE(found) << "no python3 in its own pid namespace: " << status;
  EXPECT_TRUE(header) << seen << slurp(dir_ + "/stderr");
  EXPECT_TRUE(line) << seen;
  // -p's own task events are no rows of the probes table.
  EXPECT_EQ(seen.find("sched_process_exit"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("task_newtask"), std::string::npos) << seen;
  keys("q");
  EXPECT_TRUE(wait_for([&] { return !alive(); }, 5000));
}

TEST_F(LiveScreen, KeepLeavesTheProbes) {
  start("live --keep" + live_demo_args().substr(4));  // "live -x ..." -> "live --keep -x ..."
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  keys("q");
  ASSERT_TRUE(wait_for([&] { return !alive(); }, 5000));
  EXPECT_FALSE(exists(tracing + "/instances/" + instance_));
  EXPECT_NE(slurp(tracing + "/uprobe_events").find(group_ + "/w "), std::string::npos);
}

TEST_F(LiveScreen, TerminalClosedCleansUp) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  run(tmux_ + "kill-server");  // the pane's terminal goes away: SIGHUP
  ASSERT_TRUE(wait_for([&] { return !exists(tracing + "/instances/" + instance_); }, 5000));
  EXPECT_TRUE(wait_for([&] { return slurp(tracing + "/uprobe_events").find(group_ + "/") == std::string::npos; }, 5000));
}

// The view's working process crashes (SIGSEGV, sent to it: src/cli/supervisor.h):
// the run ends with status 1 and says so, its instance is gone, and the
// terminal has its echo and line editing back, which curses had taken.
TEST_F(LiveScreen, ACrashGivesTheTerminalBackAndSaysSo) {
  start(live_demo_args(), 80, 24, "", "stty -a >" + dir_ + "/stty");
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  // The worker: the kprobe-probe whose parent is the kprobe-probe started.
  std::string worker = run("for p in $(pgrep -f '" + group_ + ":w=walk'); do "
                           "[ \"$(cat /proc/$(awk '{print $4}' /proc/$p/stat)/comm)\" = kprobe-probe ] && echo $p; done");
  ASSERT_FALSE(worker.empty()) << "no working process found";
  run("kill -SEGV " + worker);
  ASSERT_TRUE(wait_for([&] { return !alive(); }, 5000));
  EXPECT_EQ(slurp(dir_ + "/rc"), "1\n") << slurp(dir_ + "/stderr");
  EXPECT_NE(slurp(dir_ + "/stderr").find("kprobe-probe: error: the run crashed with SIGSEGV"), std::string::npos)
      << slurp(dir_ + "/stderr");
  EXPECT_FALSE(exists(tracing + "/instances/" + instance_));
  std::string modes = slurp(dir_ + "/stty");
  EXPECT_TRUE(std::regex_search(modes, std::regex("(^|\\s)icanon(\\s|$)"))) << modes;
  EXPECT_TRUE(std::regex_search(modes, std::regex("(^|\\s)echo(\\s|$)"))) << modes;
}

// The worker killed (SIGKILL, as by the OOM killer) in the view: the process
// you started leaves the alternate screen and shows the cursor again (tmux's
// own view of the pane: alternate_on, cursor_flag), as endwin() would have.
TEST_F(LiveScreen, AWorkerKilledLeavesTheAlternateScreenAndShowsTheCursor) {
  start(live_demo_args(), 80, 24, "", "sleep 60");
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  std::string flags = tmux_ + "display -p -t live '#{alternate_on} #{cursor_flag}'";
  EXPECT_EQ(run(flags), "1 0\n") << "the view is not on the alternate screen with the cursor hidden";
  std::string worker = run("for p in $(pgrep -f '" + group_ + ":w=walk'); do "
                           "[ \"$(cat /proc/$(awk '{print $4}' /proc/$p/stat)/comm)\" = kprobe-probe ] && echo $p; done");
  ASSERT_FALSE(worker.empty()) << "no working process found";
  run("kill -KILL " + worker);
  ASSERT_TRUE(wait_for([&] { return !slurp(dir_ + "/rc").empty(); }, 5000)) << slurp(dir_ + "/stderr");
  EXPECT_EQ(slurp(dir_ + "/rc"), "137\n") << slurp(dir_ + "/stderr");
  EXPECT_EQ(run(flags), "0 1\n") << "the terminal was left on the alternate screen or without its cursor";
  EXPECT_FALSE(exists(tracing + "/instances/" + instance_));
}

// Entry and return probes of one function pair from their definitions,
// whatever their names or places: the manual's `add a b` + `add%return`
// ("add" is all hex letters) and `fade:2` (after the prologue) + `fade%return`.
TEST_F(LiveScreen, LatencyPairsComeFromTheDefinitions) {
  struct Case {
    std::string program, entry, ret, label;
  };
  for (const Case &c : {Case{KPP_DEMO, "add a b", "add%return $retval", "add"},
                        Case{KPP_LATENCY_FIXTURE, "fade:2 level", "fade%return $retval", "fade"}}) {
    SCOPED_TRACE(c.entry);
    start("live -x " + c.program + " --add '" + group_ + ":e=" + c.entry + "' --add '" + group_ + ":r=" + c.ret +
          "' -- " + c.program, 100, 30);
    std::string text;
    bool paired = wait_for(
        [&] {
          text = screen();
          if (text.find("Latency") == std::string::npos) keys("Tab");
          return std::regex_search(text, std::regex("Latency \\S+ 1 entry/return pairs")) &&
                 std::regex_search(text, std::regex(c.label + ": " + group_ + ":e -> " + group_ + ":r  calls (6|5) "));
        },
        10000);
    EXPECT_TRUE(paired) << text << slurp(dir_ + "/stderr");
    keys("q");
    ASSERT_TRUE(wait_for([&] { return !alive(); }, 5000));
    run(std::string(KPP_BINARY) + " -q -d '" + group_ + ":*' 2>/dev/null");
  }
}

TEST_F(LiveScreen, DemoRunsTheLiveViewOnATerminal) {
  if (slurp(tracing + "/uprobe_events").find("probe_kpp_demo/") != std::string::npos)
    GTEST_SKIP() << "probe_kpp_demo events exist already (another demo is running)";
  start("demo");
  bool shown = wait_for(
      [&] {
        for (const std::string &l : lines_of(screen()))
          if (l.find("walk:5@") != std::string::npos && words_of(l).size() >= 4 && words_of(l)[3] == "6") return true;
        return false;
      },
      10000);
  EXPECT_TRUE(shown) << screen() << slurp(dir_ + "/stderr");
  keys("q");
  ASSERT_TRUE(wait_for([&] { return !alive(); }, 5000));
  EXPECT_EQ(slurp(tracing + "/uprobe_events").find("probe_kpp_demo/"), std::string::npos);
}

TEST_F(LiveScreen, WriteKeySavesTheBufferedEventsAsTraceDat) {
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  keys("w");
  ASSERT_TRUE(wait_for([&] { return screen().find("wrote ") != std::string::npos; }, 5000)) << screen();
  std::string file = dir_ + "/trace-live-1.dat";
  ASSERT_TRUE(exists(file)) << screen();
  if (run("command -v trace-cmd").empty()) GTEST_SKIP() << "no trace-cmd to read the file back";
  std::string report = run("trace-cmd report " + file + " 2>/dev/null");
  size_t hits = 0;
  for (const std::string &l : lines_of(report))
    if (l.find(" w: ") != std::string::npos) ++hits;
  EXPECT_EQ(hits, 6u) << report;
}

TEST_F(LiveScreen, NoColorMeansNoColourSequences) {
  // Colour pairs show as SGR colour codes in capture-pane -e; NO_COLOR
  // leaves bold and reverse video only.
  auto has_colour = [&] {
    std::string esc = run(tmux_ + "capture-pane -e -p -t live 2>/dev/null");
    for (const char *sgr : {"\x1b[30m", "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[46m", "\x1b[47m", "\x1b[30;"})
      if (esc.find(sgr) != std::string::npos) return true;
    return false;
  };
  start(live_demo_args());
  ASSERT_TRUE(shows("enabled", "6")) << screen();
  EXPECT_TRUE(has_colour()) << run(tmux_ + "capture-pane -e -p -t live");
  keys("q");
  ASSERT_TRUE(wait_for([&] { return !alive(); }, 5000));
  instance_.clear();
  start(live_demo_args(), 80, 24, "NO_COLOR=1 ");
  ASSERT_TRUE(shows("enabled", "6")) << screen() << slurp(dir_ + "/stderr");
  EXPECT_FALSE(has_colour()) << run(tmux_ + "capture-pane -e -p -t live");
}

TEST(LiveWithoutTerminal, RefusesAndPointsToTraceAndRecord) {
  std::string out = run(std::string(KPP_BINARY) + " live -e 'x:*' </dev/null 2>&1; echo rc=$?");
  EXPECT_NE(out.find("rc=1"), std::string::npos) << out;
  EXPECT_NE(out.find("needs a terminal"), std::string::npos) << out;
  EXPECT_NE(out.find("kprobe-probe trace"), std::string::npos) << out;
  EXPECT_NE(out.find("kprobe-probe record"), std::string::npos) << out;
}

// gdb's `bt` at `where` in `program`: the function of each frame, innermost first.
std::vector<std::string> gdb_bt(const std::string &program, const std::string &where, int depth) {
  std::string out = run("gdb -batch -nx -ex 'break " + where + "' -ex run -ex 'bt " + std::to_string(depth) + "' " +
                        program + " 2>/dev/null");
  std::vector<std::string> functions;
  static const std::regex frame(R"(^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \()");
  for (const std::string &l : lines_of(out)) {
    std::smatch m;
    if (std::regex_search(l, m, frame) && std::stoul(m[1]) == functions.size()) functions.push_back(m[2]);
  }
  return functions;
}

// The Stacks pane of live --stack on a program built at -O2 without frame
// pointers, probed at leaf's first instruction: the stack unwound from
// DWARF is gdb's bt there (leaf, helper inlined into middle, middle, main),
// where the kernel's frame-pointer walk would lose middle.
TEST_F(LiveScreen, StacksPaneShowsTheDwarfUnwoundStackOfAnO2ProgramWithoutFramePointers) {
  if (run("command -v gdb").empty()) GTEST_SKIP() << "needs gdb (the oracle)";
  const std::string fixture = KPP_DWARF_FIXTURE_NOFP;
  std::vector<std::string> bt = gdb_bt(fixture, "*leaf", 4);
  ASSERT_EQ(bt.size(), 4u);
  ASSERT_EQ(bt[2], "middle");
  const std::string recorded = dir_ + "/live-o.dat";
  start("live --stack -o " + recorded + " -x " + fixture + " --add '" + group_ + ":leaf=leaf' -- " + fixture, 120, 40);
  const std::string probe = group_ + ":leaf";
  ASSERT_TRUE(wait_for([&] { return screen().find(probe) != std::string::npos; }, 10000)) << screen();
  for (const std::string &w : words_of(screen()))  // for TearDown, should the view not clean up
    if (instance_.empty() && w.rfind("kprobe-probe-", 0) == 0) instance_ = w;
  for (int i = 0; i < 4; ++i) keys("Tab");  // Probes, Log, Latency, Args, Stacks
  ASSERT_TRUE(wait_for([&] { return screen().find(probe + ": 1 stacks") != std::string::npos; }, 10000)) << screen();
  // The pane's lines below its header: "  COUNT  leaf+0x0", then a frame a line.
  std::string s = screen();
  std::vector<std::string> lines = lines_of(s);
  size_t at = 0;
  while (at < lines.size() && lines[at].find(probe + ": 1 stacks") == std::string::npos) ++at;
  std::vector<std::string> shown;
  static const std::regex frame(R"(^\s+(?:1\s+)?(\S+?)(?:\+0x[0-9a-f]+| \(inlined\))\s*$)");
  for (size_t i = at + 1; i < lines.size() && shown.size() < bt.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, frame)) shown.push_back(m[1]);
  }
  EXPECT_EQ(shown, bt) << s;
  EXPECT_NE(s.find("helper (inlined)"), std::string::npos) << s;
  EXPECT_NE(s.find("          1  leaf+0x0"), std::string::npos) << s;  // one hit, at leaf's first byte
  keys("w");  // the buffered pages to trace-live-1.dat
  EXPECT_TRUE(wait_for([&] { return screen().find("wrote ") != std::string::npos; }, 5000)) << screen();
  keys("q");
  EXPECT_TRUE(wait_for([&] { return !alive(); }, 5000));
  EXPECT_NE(slurp(dir_ + "/stderr").find("1 events, 0 lost"), std::string::npos) << slurp(dir_ + "/stderr");
  // Both files, -o's and w's, keep the DWARF stack (no page holds it) as
  // record does: report folds it to gdb's frames, outermost first.
  std::string folded_bt;
  for (auto f = bt.rbegin(); f != bt.rend(); ++f) folded_bt += ";" + *f;
  for (const std::string &file : {recorded, dir_ + "/trace-live-1.dat"}) {
    SCOPED_TRACE(file);
    std::string folded = run(std::string(KPP_BINARY) + " report --folded " + file + " 2>&1");
    EXPECT_NE(folded.find(folded_bt), std::string::npos) << folded;
  }
}

}  // namespace
