// -p PID end to end: processes the TEST starts (never the tool), probed
// and traced by pid. Expected values come from what the test gave the
// fixture (its tag, its allocation size) and from the kernel (/proc's
// NSpid), never from the tool. The command-line checks follow perf's own
// tests of perf probe (tools/perf/tests/shell/base_probe/
// test_invalid_options.sh), read as a list of what must be refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/run_command.h"
#include "tests/export/background_process.h"
#include "tests/export/http_client.h"
#include "uprobe_support.h"

namespace {

using namespace uprobe_test;
namespace fs = std::filesystem;

const std::string fixture = std::string(KPP_E2E_FIXTURE_DIR) + "/pid_fixture";
const std::string fixture_source = KPP_PID_FIXTURE_SOURCE;

// A program the test starts: its output in a file of its own, stopped
// (SIGTERM, then SIGKILL) when it goes out of scope.
class Started : public background_process {
 public:
  explicit Started(const std::vector<std::string> &argv) : Started(argv, log_prefix()) {}
  ~Started() {
    stop();
    unlink((prefix_ + ".out").c_str());
    unlink((prefix_ + ".err").c_str());
  }

 private:
  Started(const std::vector<std::string> &argv, const std::string &prefix)
      : background_process(argv, prefix), prefix_(prefix) {}
  static std::string log_prefix() {
    static int count = 0;
    return "/tmp/kpp-pid-test-" + std::to_string(getpid()) + "-" + std::to_string(++count);
  }
  std::string prefix_;
};

// kprobe-probe (uprobe_test::kpp; the name alone would also be the namespace).
run_result tool(std::vector<std::string> args, const run_options &opt = {}) { return uprobe_test::kpp(std::move(args), opt); }

std::string str(pid_t pid) { return std::to_string(pid); }

// Waits until `pid` runs `exe` (its exec done), at most 5 s.
bool runs(pid_t pid, const std::string &comm) {
  for (int i = 0; i < 250; ++i) {
    std::string c = read_file("/proc/" + str(pid) + "/comm");
    if (c == comm + "\n") return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A value of a JSON event line's top level ("pid", "ns_pid").
std::string top_level(const std::string &line, const std::string &key) {
  auto v = parse_json(line);
  const json_value *f = v ? v->get(key) : nullptr;
  return f ? f->scalar() : "";
}

// The JSON event lines of GROUP on stdout.
std::vector<std::string> event_lines(const std::string &out, const std::string &group) {
  std::vector<std::string> lines;
  for (const std::string &line : split_lines(out))
    if (contains(line, "\"event\":\"" + group + ":")) lines.push_back(line);
  return lines;
}

// --- the command line, as perf's tests expect of perf probe ---------------

TEST(TargetPidCli, SwitchesWithoutTheirValueSaySo) {
  for (const char *opt : {"-a", "-d", "-L", "-V", "-p"}) {
    run_result r = tool({opt});
    EXPECT_EQ(r.status, 1) << opt << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, std::string("switch '") + opt + "' needs a value")) << describe(r);
  }
}

TEST(TargetPidCli, MutuallyExclusiveSwitchesAreRefusedNamingBoth) {
  // perf's pairs; the group's probes would be touched if any ran.
  const std::vector<std::vector<std::string>> pairs = {
      {"-a", "xxx", "-d", "kpp_never_group:xxx"}, {"-a", "xxx", "-L", "foo"}, {"-a", "xxx", "-V", "foo"},
      {"-a", "xxx", "-l"}, {"-a", "xxx", "-F"}, {"-d", "kpp_never_group:xxx", "-L", "foo"},
      {"-d", "kpp_never_group:xxx", "-V", "foo"}, {"-d", "kpp_never_group:xxx", "-l"},
      {"-d", "kpp_never_group:xxx", "-F"}, {"-L", "foo", "-V", "bar"}, {"-L", "foo", "-l"}, {"-L", "foo", "-F"},
      {"-V", "foo", "-l"}, {"-V", "foo", "-F"}, {"-l", "-F"},
      // -p where it does not apply
      {"-p", "1", "-d", "kpp_never_group:xxx"}, {"-p", "1", "-l"}, {"-p", "1", "-k", "/vmlinux", "-a", "f"}};
  const std::regex refused("switch '.+' cannot be used with switch '.+'");
  for (const auto &args : pairs) {
    run_result r = tool(args);
    std::string line;
    for (const std::string &a : args) line += " " + a;
    EXPECT_EQ(r.status, 1) << line << "\n" << describe(r);
    EXPECT_TRUE(std::regex_search(r.err, refused)) << line << "\n" << describe(r);
    EXPECT_FALSE(contains(r.err, "Removed") || contains(r.err, "Added")) << line << ": something ran\n" << describe(r);
  }
}

// perf's test_line_semantics.sh: these -L forms are taken, those refused.
TEST(TargetPidCli, LineRangesAsPerfsTestsExpect) {
  std::string line = std::to_string(line_of(fixture_source, "work:1, the line"));
  for (const std::string &good : {std::string("work"), std::string("work:1"), std::string("work:0-2"),
                                  std::string("work:1+1"), std::string("work@pid_fixture.c"),
                                  std::string("work@pid_fixture.c:1"), "pid_fixture.c:" + line,
                                  "pid_fixture.c:" + line + "+1", "pid_fixture.c:" + line + "-" + line}) {
    run_result r = tool({"-x", fixture, "-L", good});
    EXPECT_EQ(r.status, 0) << good << "\n" << describe(r);
  }
  for (const char *bad : {"work:foo", "work:1-foo", "work:1+foo", "work;lazy*pattern"}) {
    run_result r = tool({"-x", fixture, "-L", bad});
    EXPECT_EQ(r.status, 1) << bad << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "^")) << "the caret under what is wrong: " << describe(r);
  }
  EXPECT_TRUE(contains(tool({"-x", fixture, "-L", "work;lazy*pattern"}).err, "lazy pattern"));
}

TEST(TargetPidCli, BadPidsAreRefusedNamingThePidAndWhy) {
  run_result word = tool({"-p", "abc", "-D", "work"});
  EXPECT_EQ(word.status, 1);
  EXPECT_TRUE(contains(word.err, "-p: expected a process id, got 'abc'")) << describe(word);

  // A pid no process has: the one of a child reaped just now (pids are not reused at once).
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  run_result none = tool({"-p", str(gone), "-D", "work"});
  EXPECT_EQ(none.status, 1);
  EXPECT_TRUE(contains(none.err, "-p " + str(gone) + ": no such process")) << describe(none);

  // A zombie: a child that exited and that this test has not reaped yet.
  pid_t zombie = fork();
  if (zombie == 0) _exit(0);
  for (int i = 0; i < 100 && !contains(read_file("/proc/" + str(zombie) + "/stat"), ") Z "); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  run_result z = tool({"-p", str(zombie), "-D", "work"});
  waitpid(zombie, nullptr, 0);
  EXPECT_EQ(z.status, 1);
  EXPECT_TRUE(contains(z.err, "-p " + str(zombie) + ": ") && contains(z.err, "zombie")) << describe(z);

  // Another user's process: reading its files needs ptrace access, as gdb -p does.
  Started mine({fixture, "1", "100"});
  ASSERT_TRUE(runs(mine.pid(), "pid_fixture"));
  run_options nobody;
  nobody.uid = 65534;
  run_result denied = tool({"-p", str(mine.pid()), "-D", "work"}, nobody);
  EXPECT_EQ(denied.status, 1);
  EXPECT_TRUE(contains(denied.err, "-p " + str(mine.pid()) + ": cannot read its root: permission denied") &&
              contains(denied.err, "CAP_SYS_PTRACE"))
      << describe(denied);

  // kthreadd (pid 2 when the kernel made it, which /proc/2/stat's flags say).
  if (contains(read_file("/proc/2/comm"), "kthreadd")) {
    run_result k = tool({"-p", "2", "-D", "work"});
    EXPECT_EQ(k.status, 1);
    EXPECT_TRUE(contains(k.err, "-p 2: 'kthreadd' is a kernel thread")) << describe(k);
  }

  // A thread id is not a process: the message names the process.
  pid_t tid = 0;
  bool done = false;
  std::thread thread([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  run_result t = tool({"-p", str(tid), "-D", "work"});
  __atomic_store_n(&done, true, __ATOMIC_RELEASE);
  thread.join();
  EXPECT_EQ(t.status, 1);
  EXPECT_TRUE(contains(t.err, "a thread of process " + str(getpid()) + ", not a process")) << describe(t);
}

// --- real probes on real processes ---------------------------------------

class TargetPid : public UprobeGroupTest {
 protected:
  TargetPid() : UprobeGroupTest("kpptest_pid") {}
};

TEST_F(TargetPid, TraceShowsOnlyItsTargetsHits) {
  Started a({fixture, "1", "100"});
  Started b({fixture, "2", "200"});
  ASSERT_TRUE(runs(a.pid(), "pid_fixture") && runs(b.pid(), "pid_fixture"));
  run_result add = tool({"-p", str(a.pid()), "--add", ev("work") + "work tag"});
  ASSERT_EQ(add.status, 0) << describe(add);
  // The suggestion is the matching trace -p, and the per-file nature is said.
  EXPECT_TRUE(contains(add.err, "kprobe-probe trace -p " + str(a.pid()) + " -e " + group_ + ":work")) << add.err;
  EXPECT_TRUE(contains(add.err, "fires in every process that runs or maps")) << add.err;
  // The probe is on the file: both processes hit it; the session keeps A's.
  run_result r = tool({"trace", "-p", str(a.pid()), "-e", group_ + ":work", "--json", "--duration", "1"});
  ASSERT_EQ(r.status, 0) << describe(r);
  std::vector<std::string> lines = event_lines(r.out, group_);
  EXPECT_GE(lines.size(), 10u) << describe(r);  // 50 rounds a second
  for (const std::string &line : lines) {
    EXPECT_EQ(top_level(line, "pid"), str(a.pid())) << line;
    EXPECT_TRUE(contains(line, "\"tag\":1")) << line;
  }
  // Without -p the same session shows both.
  run_result all = tool({"trace", "-e", group_ + ":work", "--json", "--duration", "1"});
  ASSERT_EQ(all.status, 0) << describe(all);
  std::set<std::string> pids;
  for (const std::string &line : event_lines(all.out, group_)) pids.insert(top_level(line, "pid"));
  EXPECT_TRUE(pids.count(str(a.pid())) && pids.count(str(b.pid()))) << describe(all);
}

TEST_F(TargetPid, LibcMallocOfOneProcessReadsItsSizes) {
  // libc6-dbg gives malloc's parameter its name.
  if (tool({"-x", "/lib/x86_64-linux-gnu/libc.so.6", "-D", "__libc_malloc bytes"}).status != 0)
    GTEST_SKIP() << "libc without DWARF here (scripts/install-deps.sh --tests installs libc6-dbg)";
  Started a({fixture, "1", "12345"});
  Started b({fixture, "2", "54321"});
  ASSERT_TRUE(runs(a.pid(), "pid_fixture") && runs(b.pid(), "pid_fixture"));
  run_result add = tool({"-p", str(a.pid()), "-x", "libc.so.6", "--add", ev("malloc") + "malloc bytes"});
  ASSERT_EQ(add.status, 0) << describe(add);
  // The library as the process maps it.
  std::vector<std::string> defined = group_lines(group_);
  ASSERT_EQ(defined.size(), 1u);
  EXPECT_TRUE(contains(defined[0], "/libc.so.6:0x")) << defined[0];
  run_result r = tool({"trace", "-p", str(a.pid()), "-e", group_ + ":malloc", "--json", "--duration", "1"});
  ASSERT_EQ(r.status, 0) << describe(r);
  size_t ours = 0;
  for (const std::string &line : event_lines(r.out, group_)) {
    EXPECT_EQ(top_level(line, "pid"), str(a.pid())) << line;
    EXPECT_FALSE(contains(line, "\"bytes\":54321")) << "B's allocation: " << line;
    ours += contains(line, "\"bytes\":12345");
  }
  EXPECT_GE(ours, 10u) << describe(r);
  // A library it does not map is refused, naming what it maps.
  run_result missing = tool({"-p", str(a.pid()), "-x", "libkpp_never*", "-D", "f"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(contains(missing.err, "maps no such file") && contains(missing.err, "libc.so.6")) << describe(missing);
}

TEST_F(TargetPid, TraceEndsWhenTheTargetExits) {
  run_result add = tool({"-x", fixture, "--add", ev("work") + "work round"});
  ASSERT_EQ(add.status, 0) << describe(add);
  Started a({fixture, "1", "100", "75"});  // 75 rounds of 20 ms: 1.5 s
  ASSERT_TRUE(runs(a.pid(), "pid_fixture"));
  pid_t target = a.pid();
  run_options guard;
  guard.signal = SIGKILL;
  guard.signal_after_s = 20;
  auto started = std::chrono::steady_clock::now();
  // The test reaps it in a thread, as a parent does: a zombie has exited too.
  std::thread reaper([&] { a.wait_for([&] { return a.exited(); }, 10); });
  // sched_process_exit, which -p reads for itself, is shown when asked for.
  run_result r = tool({"trace", "-p", str(target), "-e", group_ + ":work", "-e", "sched:sched_process_exit", "--json"},
                      guard);
  reaper.join();
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(r.status, 0) << describe(r);
  EXPECT_LT(took, 10.0);
  EXPECT_TRUE(contains(r.err, "pid " + str(target) + " (pid_fixture) exited")) << describe(r);
  // Its last round is among the events, then its exit.
  EXPECT_TRUE(contains(r.out, "\"round\":74")) << describe(r);
  EXPECT_TRUE(contains(r.out, "\"pid\":" + str(target) + ",\"event\":\"sched:sched_process_exit\"")) << describe(r);
}

// A process in its own mount and pid namespaces, chrooted into a tree the
// test builds: its binary is stripped, its DWARF is only in the tree's
// /usr/lib/debug/.build-id.
class Container {
 public:
  explicit Container(const std::string &fixture_path) {
    root_ = fs::temp_directory_path() / ("kpp-container-" + str(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "app");
    std::string exe = (root_ / "app/pid_fixture").string();
    std::string build_id = note_build_id(fixture_path);
    if (build_id.size() < 3) return;
    fs::path debug = root_ / "usr/lib/debug/.build-id" / build_id.substr(0, 2) / (build_id.substr(2) + ".debug");
    fs::create_directories(debug.parent_path());
    auto made = ::kpp::test::run_command("objcopy --only-keep-debug " + fixture_path + " " + debug.string() +
                                       " && strip --strip-debug -o " + exe + " " + fixture_path);
    if (made.status != 0) return;
    // Its loader and libc, where the program looks for them.
    for (const char *lib : {"/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6"}) {
      fs::create_directories(root_ / fs::path(lib).relative_path().parent_path());
      fs::copy_file(fs::canonical(lib), root_ / fs::path(lib).relative_path());
    }
    ready_ = true;
  }
  ~Container() {
    // unshare's child is the namespace's init: ending unshare does not end it.
    if (program_ > 0) kill(program_, SIGKILL);
    outer_.reset();
    fs::remove_all(root_);
  }
  bool ready() const { return ready_; }
  // Starts it; the host pid of the program (unshare's child, which chroot becomes).
  pid_t start(const std::string &tag) {
    outer_ = std::make_unique<Started>(std::vector<std::string>{"/usr/bin/unshare", "-m", "-p", "-f", "--mount-proc",
                                                                "/usr/sbin/chroot", root_.string(), "/app/pid_fixture",
                                                                tag, "100"});
    for (int i = 0; i < 250; ++i) {
      pid_t child = first_child(outer_->pid());
      if (child && runs(child, "pid_fixture")) return program_ = child;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
  }

 private:
  static std::string note_build_id(const std::string &path) {
    auto r = ::kpp::test::run_command("readelf -n " + path + " | sed -n 's/.*Build ID: *//p'");
    std::string id = r.out;
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    return id;
  }
  fs::path root_;
  bool ready_ = false;
  std::unique_ptr<Started> outer_;
  pid_t program_ = 0;
};

TEST_F(TargetPid, ContainerProcessProbedBySourceLineWithBothPids) {
  if (access("/usr/bin/unshare", X_OK) != 0 || access("/usr/sbin/chroot", X_OK) != 0)
    GTEST_SKIP() << "unshare or chroot missing (util-linux, coreutils)";
  Container container(fixture);
  ASSERT_TRUE(container.ready()) << "cannot build the container's tree";
  pid_t host = container.start("7");
  ASSERT_GT(host, 0) << "the container's program did not start";
  // The kernel's own answer: NSpid's last field.
  std::string status = read_file("/proc/" + str(host) + "/status");
  std::smatch nspid;
  ASSERT_TRUE(std::regex_search(status, nspid, std::regex("NSpid:\\s+\\d+\\s+(\\d+)")));
  std::string inner = nspid[1];
  // By source line: only the tree's debug file can say where work:1 is.
  int line = line_of(fixture_source, "work:1, the line") - line_of(fixture_source, "long work(");
  run_result add = tool({"-v", "-p", str(host), "--add", ev("work") + "work:" + std::to_string(line) + " tag"});
  ASSERT_EQ(add.status, 0) << describe(add);
  EXPECT_TRUE(contains(add.err, "/proc/" + str(host) + "/root/usr/lib/debug/.build-id/")) << add.err;
  std::vector<std::string> defined = group_lines(group_);
  ASSERT_EQ(defined.size(), 1u);
  EXPECT_TRUE(contains(defined[0], "/proc/" + str(host) + "/root/app/pid_fixture:0x")) << defined[0];
  // perf's spelling: -x PATH in the mount namespace of --target-ns's process.
  run_result perf_form = tool({"--target-ns=" + str(host), "-x", "/app/pid_fixture", "-D", "work tag"});
  EXPECT_EQ(perf_form.status, 0) << describe(perf_form);
  EXPECT_TRUE(contains(perf_form.out, " /proc/" + str(host) + "/root/app/pid_fixture:0x")) << describe(perf_form);
  run_result session_form = tool({"trace", "--target-ns=" + str(host), "-e", group_ + ":work"});
  EXPECT_EQ(session_form.status, 1);
  EXPECT_TRUE(contains(session_form.err, "--target-ns does not apply to 'trace'")) << describe(session_form);
  // -l names the process the probe was made for and the path in it.
  run_result listed = tool({"-l", group_ + ":*"});
  EXPECT_TRUE(contains(listed.out, "[/app/pid_fixture in the root of pid " + str(host) + "]")) << describe(listed);
  run_result listed_json = tool({"-l", group_ + ":*", "--json"});
  EXPECT_TRUE(contains(listed_json.out, "\"process_root_of\":" + str(host) + ",\"path_in_process\":\"/app/pid_fixture\""))
      << describe(listed_json);
  run_result r = tool({"trace", "-p", str(host), "-e", group_ + ":work", "--json", "--duration", "1"});
  ASSERT_EQ(r.status, 0) << describe(r);
  std::vector<std::string> lines = event_lines(r.out, group_);
  EXPECT_GE(lines.size(), 10u) << describe(r);
  for (const std::string &event : lines) {
    EXPECT_EQ(top_level(event, "pid"), str(host)) << event;
    EXPECT_EQ(top_level(event, "ns_pid"), inner) << event;
    EXPECT_TRUE(contains(event, "\"tag\":7")) << event;
  }
  EXPECT_TRUE(contains(r.err, "pid " + inner + " in the container, " + str(host) + " on the host (pid_fixture)"))
      << describe(r);
  // Text lines: the host's pid, then the container's, on every line.
  run_result text = tool({"trace", "-p", str(host), "-e", group_ + ":work", "--duration", "1"});
  ASSERT_EQ(text.status, 0) << describe(text);
  size_t shown = 0;
  for (const std::string &event : split_lines(text.out)) {
    if (!contains(event, " " + group_ + ":work ")) continue;
    ++shown;
    EXPECT_TRUE(contains(event, " pid_fixture-" + str(host) + "(container:" + inner + ") ")) << event;
  }
  EXPECT_GE(shown, 10u) << describe(text);
}

}  // namespace

namespace {

// Whether the trace run `pid` has its tracefs instance set up and tracing
// on: a new instance has tracing on until the run turns it off to set up,
// and the pids are written after that, so both must be there.
bool tracing(pid_t pid) {
  std::string instance = tracing_dir() + "/instances/kprobe-probe-" + str(pid);
  return !read_file(instance + "/set_event_pid").empty() && read_file(instance + "/tracing_on") == "1\n";
}

// A real server from Debian's packages (python3.11's http.server, its
// DWARF from python3.11-dbg), started by the test on 127.0.0.1 beside a
// second one, probed by pid while it serves requests the test sends: the
// accept in its main thread and the shutdown each request's own thread
// makes (ThreadingHTTPServer) are counted per request, the other
// server's not at all.
TEST_F(TargetPid, PythonHttpServerCountedPerRequest) {
  const std::string python = "/usr/bin/python3.11";
  if (access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "no python3.11";
  if (tool({"-x", python, "-D", "sock_shutdown"}).status != 0)
    GTEST_SKIP() << "python3.11 without DWARF here (scripts/install-deps.sh --tests installs python3.11-dbg)";
  uint16_t port_a = free_port(), port_b = free_port();
  std::string dir = fs::temp_directory_path() / ("kpp-http-" + str(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir + "/index.html") << "hello\n";
  Started a({python, "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, std::to_string(port_a)});
  Started b({python, "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, std::to_string(port_b)});
  auto serving = [](uint16_t port) {
    for (int i = 0; i < 250; ++i) {
      if (http_get(port, "/").status == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  };
  ASSERT_TRUE(serving(port_a) && serving(port_b));
  run_result add = tool({"-p", str(a.pid()), "--add", ev("accept") + "sock_accept", "--add", ev("shutdown") + "sock_shutdown"});
  ASSERT_EQ(add.status, 0) << describe(add);
  Started trace({kpp_bin, "trace", "-p", str(a.pid()), "-e", group_ + ":*", "--json"});
  for (int i = 0; i < 500 && !tracing(trace.pid()); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(tracing(trace.pid())) << trace.err();
  const int requests = 7;
  for (int i = 0; i < requests; ++i) {
    EXPECT_EQ(http_get(port_a, "/index.html").status, 200);
    EXPECT_EQ(http_get(port_b, "/index.html").status, 200);  // the same probes fire there: not shown
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a poll or more
  EXPECT_EQ(trace.stop(SIGINT), 0) << trace.err();
  int accepts = 0, shutdowns = 0;
  std::set<std::string> shutdown_threads;
  for (const std::string &line : event_lines(trace.out(), group_)) {
    if (contains(line, ":accept\"")) {
      ++accepts;
      EXPECT_EQ(top_level(line, "pid"), str(a.pid())) << "accept runs in the main thread: " << line;
    }
    if (contains(line, ":shutdown\"")) {
      ++shutdowns;
      shutdown_threads.insert(top_level(line, "pid"));
    }
  }
  EXPECT_EQ(accepts, requests) << trace.out() << trace.err();
  EXPECT_EQ(shutdowns, requests) << trace.out() << trace.err();
  // Each request in a thread of its own, none the main thread.
  EXPECT_EQ(shutdown_threads.size(), static_cast<size_t>(requests));
  EXPECT_FALSE(shutdown_threads.count(str(a.pid())));
  fs::remove_all(dir);
}

}  // namespace

namespace {

// Without --children, the processes a target forks are not shown (their
// work(101, ...)) nor recorded; with it, they are.
TEST_F(TargetPid, ChildrenOnlyWithTheFlag) {
  Started a({fixture, "1", "100", "0", "fork"});
  ASSERT_TRUE(runs(a.pid(), "pid_fixture"));
  run_result add = tool({"-p", str(a.pid()), "--add", ev("work") + "work tag round"});
  ASSERT_EQ(add.status, 0) << describe(add);
  auto tags = [&](const std::vector<std::string> &extra) {
    std::vector<std::string> args{"trace", "-p", str(a.pid()), "-e", group_ + ":work", "--json", "--duration", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    run_result r = tool(args);
    EXPECT_EQ(r.status, 0) << describe(r);
    std::map<std::string, int> seen;
    for (const std::string &line : event_lines(r.out, group_)) ++seen[contains(line, "\"tag\":101") ? "child" : "own"];
    return seen;
  };
  std::map<std::string, int> own = tags({});
  EXPECT_GE(own["own"], 10);
  EXPECT_EQ(own["child"], 0);
  std::map<std::string, int> all = tags({"--children"});
  EXPECT_GE(all["own"], 10);
  EXPECT_GE(all["child"], 10);
  // record -p keeps what trace -p shows: the trace.dat, read by trace-cmd
  // (the oracle, not our reader), holds the same, and the events kept have
  // their times, in order.
  std::string dat = "/tmp/kpptest_pid_record_" + str(getpid()) + ".dat";
  auto recorded = [&](const std::vector<std::string> &extra) {
    std::vector<std::string> args{"record", "-p", str(a.pid()), "-e", group_ + ":work", "-o", dat, "--duration", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    run_result r = tool(args);
    EXPECT_EQ(r.status, 0) << describe(r);
    run_result raw = run_program({"/bin/sh", "-c", "trace-cmd report -i " + dat + " 2>/dev/null"});
    std::remove(dat.c_str());
    EXPECT_EQ(raw.status, 0) << describe(raw);
    std::map<std::string, int> seen;
    double last = 0;
    const std::regex time(R"(\s(\d+\.\d+):\s)");
    for (const std::string &line : split_lines(raw.out)) {
      if (!contains(line, " work: ")) continue;  // trace-cmd names the event without its group
      ++seen[contains(line, "tag=101") ? "child" : contains(line, "tag=1 ") ? "own" : "other"];
      std::smatch t;
      if (std::regex_search(line, t, time)) {
        double now = std::stod(t[1]);
        EXPECT_GE(now, last) << line;
        last = now;
      }
    }
    return seen;
  };
  std::map<std::string, int> own_recorded = recorded({});
  EXPECT_GE(own_recorded["own"], 10);
  EXPECT_EQ(own_recorded["child"], 0) << "record -p without --children kept the child processes' events";
  EXPECT_EQ(own_recorded["other"], 0);
  std::map<std::string, int> all_recorded = recorded({"--children"});
  EXPECT_GE(all_recorded["own"], 10);
  EXPECT_GE(all_recorded["child"], 10);
}

}  // namespace

namespace {

// --- a pid is not a process for ever ---------------------------------------

// clone3's arguments (linux/sched.h, CLONE_ARGS_SIZE_VER1): set_tid asks
// for the child's pid (root may, in its own pid namespace).
struct CloneArgs {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size;
};

// Starts `argv` (output to /dev/null) as a child of this test with pid
// `pid`, or any pid when `pid` is 0; -errno when the kernel refuses.
pid_t spawn_with_pid(const std::vector<std::string> &argv, pid_t pid = 0) {
  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t wanted[1] = {pid};
  CloneArgs clone{};
  clone.exit_signal = SIGCHLD;
  clone.set_tid = pid ? reinterpret_cast<uint64_t>(wanted) : 0;
  clone.set_tid_size = pid ? 1 : 0;
  long child = syscall(SYS_clone3, &clone, sizeof clone);
  if (child < 0) return -errno;
  if (child == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  return static_cast<pid_t>(child);
}

// The pid-reuse scenario: target A ends after `rounds`; the moment the
// test reaps it, a new process C (tag 3, until killed) is started with
// A's pid, running the same program. The tool must never take C for A.
struct PidReuse {
  pid_t a = 0, c = 0;
  int a_status = -1;
  std::thread reaper;
  explicit PidReuse(const std::string &rounds) {
    a = spawn_with_pid({fixture, "1", "100", rounds});
    reaper = std::thread([this] {
      int st = 0;
      if (a > 0 && waitpid(a, &st, 0) == a) a_status = st;
      c = spawn_with_pid({fixture, "3", "300"}, a);
    });
  }
  ~PidReuse() {
    if (reaper.joinable()) reaper.join();
    if (c > 0) kill(c, SIGKILL), waitpid(c, nullptr, 0);
  }
  void join() { reaper.join(); }
  bool reused() const { return c == a; }
};

TEST_F(TargetPid, ATargetWhosePidIsReusedIsNotFollowed) {
  run_result add = tool({"-x", fixture, "--add", ev("work") + "work tag round"});
  ASSERT_EQ(add.status, 0) << describe(add);
  PidReuse reuse("50");  // 1 s
  ASSERT_GT(reuse.a, 0);
  ASSERT_TRUE(runs(reuse.a, "pid_fixture"));
  run_options guard;
  guard.signal = SIGKILL;
  guard.signal_after_s = 20;
  run_result r = tool({"trace", "-p", str(reuse.a), "-e", group_ + ":work", "--json"}, guard);
  reuse.join();
  if (reuse.c == -EPERM || reuse.c == -ENOSYS || reuse.c == -EEXIST)
    GTEST_SKIP() << "clone3 could not give a new process pid " << reuse.a << ": " << std::strerror(-reuse.c);
  ASSERT_TRUE(reuse.reused()) << "clone3 gave " << reuse.c;
  EXPECT_TRUE(WIFEXITED(reuse.a_status) && WEXITSTATUS(reuse.a_status) == 0) << reuse.a_status;
  // The run ended with A, said so, and showed A's events and never C's.
  EXPECT_EQ(r.status, 0) << describe(r);
  EXPECT_TRUE(contains(r.err, "pid " + str(reuse.a) + " (pid_fixture) exited")) << describe(r);
  EXPECT_TRUE(contains(r.out, "\"round\":49")) << describe(r);
  EXPECT_FALSE(contains(r.out, "\"tag\":3")) << "C, which took A's pid, was followed:\n" << describe(r);
}

TEST_F(TargetPid, ATargetWhosePidIsReusedIsNotFollowedWhileOthersRun) {
  run_result add = tool({"-x", fixture, "--add", ev("work") + "work tag round"});
  ASSERT_EQ(add.status, 0) << describe(add);
  Started b({fixture, "2", "200", "150"});  // 3 s
  PidReuse reuse("50");                     // 1 s
  ASSERT_GT(reuse.a, 0);
  ASSERT_TRUE(runs(reuse.a, "pid_fixture") && runs(b.pid(), "pid_fixture"));
  run_options guard;
  guard.signal = SIGKILL;
  guard.signal_after_s = 20;
  std::thread b_reaper([&] { b.wait_for([&] { return b.exited(); }, 10); });
  run_result r =
      tool({"trace", "-p", str(reuse.a), "-p", str(b.pid()), "-e", group_ + ":work", "--json"}, guard);
  b_reaper.join();
  reuse.join();
  if (reuse.c == -EPERM || reuse.c == -ENOSYS || reuse.c == -EEXIST)
    GTEST_SKIP() << "clone3 could not give a new process pid " << reuse.a << ": " << std::strerror(-reuse.c);
  ASSERT_TRUE(reuse.reused()) << "clone3 gave " << reuse.c;
  EXPECT_EQ(r.status, 0) << describe(r);
  // B's last round came two seconds after C started: the run went on, without C.
  EXPECT_TRUE(contains(r.out, "\"tag\":2,\"round\":149")) << describe(r);
  size_t c_events = 0;
  for (const std::string &line : event_lines(r.out, group_)) c_events += contains(line, "\"tag\":3");
  EXPECT_EQ(c_events, 0u) << "C, which took A's pid, was followed:\n" << describe(r);
}

}  // namespace

namespace {

// export -p: the metrics count only the target's hits (its tag, 1, never
// the other instance's 2: every value of the tag histogram is <= 1), and
// the exporter ends, exit 0, when the target exits.
TEST_F(TargetPid, ExportCountsOnlyItsTarget) {
  run_result add = tool({"-x", fixture, "--add", ev("work") + "work tag"});
  ASSERT_EQ(add.status, 0) << describe(add);
  Started b({fixture, "2", "200"});
  Started a({fixture, "1", "100", "150"});  // 3 s
  ASSERT_TRUE(runs(a.pid(), "pid_fixture") && runs(b.pid(), "pid_fixture"));
  Started exporter({kpp_bin, "export", "-p", str(a.pid()), "-e", group_ + ":work", "--listen", "127.0.0.1:0",
                    "--hist", "tag"});
  std::smatch m;
  const std::regex serving(R"(serving metrics at http://127\.0\.0\.1:([0-9]+)/metrics)");
  std::string said;
  ASSERT_TRUE(exporter.wait_for([&] { return std::regex_search(said = exporter.err(), m, serving); }, 30)) << said;
  uint16_t port = static_cast<uint16_t>(std::stoi(m[1].str()));
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  std::string body = http_get(port, "/metrics").body;
  auto value = [&](const std::string &name) {
    std::smatch v;
    std::regex line("\n" + std::regex_replace(name, std::regex(R"([{}\\.+"])"), R"(\$&)") + R"( ([0-9.e+]+))");
    return std::regex_search(body, v, line) ? std::stod(v[1]) : -1.0;
  };
  std::string labels = "group=\"" + group_ + "\",event=\"work\",arg=\"tag\"";
  double count = value("kprobe_probe_arg_count{" + labels + "}");
  EXPECT_GE(count, 10) << body;
  EXPECT_EQ(value("kprobe_probe_arg_bucket{" + labels + ",le=\"1\"}"), count) << "another process's hits:\n" << body;
  std::thread reaper([&] { a.wait_for([&] { return a.exited(); }, 10); });
  EXPECT_TRUE(exporter.wait_for([&] { return exporter.exited(); }, 15)) << exporter.err();
  reaper.join();
  EXPECT_EQ(exporter.stop(), 0) << exporter.err();
  EXPECT_TRUE(contains(exporter.err(), "pid " + str(a.pid()) + " (pid_fixture) exited")) << exporter.err();
}

}  // namespace
