// debuginfod servers that stall, stream for ever, send gzip bombs, loop on
// redirects, fail with HTTP errors or answer with the wrong file: a server
// of the test's own on 127.0.0.1 (fault_server.py, one behaviour per path
// prefix) in front of kprobe-probe, which must give up within its bounds,
// say what the server did, leave nothing in its cache but a remembered
// failure, ask the next server, and never keep a wrong file. And a trace
// whose stack frames need the debug file: against a stalling server it ends
// on time with no event lost; against a slow one its frames wait for their
// symbols while the events keep coming.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/run_program.h"
#include "../export/background_process.h"
#include "../export/http_client.h"

namespace {

namespace fs = std::filesystem;

const std::string kpp_bin = KPP_BIN;
const std::string fixture_dir = KPP_DEBUGINFOD_FIXTURE_DIR;
const std::string fault_server = KPP_DEBUGINFOD_FAULT_SERVER;

std::string describe(const run_result &r) {
  return "exit " + std::to_string(r.status) + " after " + std::to_string(r.total_s) + " s\n--- stdout:\n" +
         r.out.substr(0, 4000) + "--- stderr:\n" + r.err.substr(0, 4000);
}

std::string build_id_of(const std::string &path) {
  run_result r = run_program({"/usr/bin/readelf", "-n", path});
  std::smatch m;
  static const std::regex id(R"(Build ID: ([0-9a-f]+))");
  return std::regex_search(r.out, m, id) ? m[1].str() : "";
}

// Every regular file under `dir`, with its size.
std::vector<std::pair<std::string, uintmax_t>> files_under(const std::string &dir) {
  std::vector<std::pair<std::string, uintmax_t>> out;
  if (!fs::exists(dir)) return out;
  for (const auto &e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.emplace_back(e.path().string(), e.file_size());
  return out;
}

class DebuginfodFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3 to run the test's server";
    char dir[] = "/tmp/kpp-debuginfod-faults-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    tmp_ = dir;
    fs::create_directories(tmp_ + "/served");
    fs::create_directories(tmp_ + "/empty-debug-root");
    fs::copy_file(fixture_dir + "/prog.debug", tmp_ + "/served/prog.debug");
    fs::copy_file(fixture_dir + "/stack.debug", tmp_ + "/served/stack.debug");
    id_ = build_id_of(fixture_dir + "/prog.stripped");
    ASSERT_FALSE(id_.empty());
    // Another build's debug file, and the right one damaged (its section
    // headers cut off: the ELF header still says where they were).
    ASSERT_EQ(run_program({"/usr/bin/objcopy", "--remove-section", ".note.gnu.build-id", fixture_dir + "/stack.debug",
                           tmp_ + "/served/other"}).status, 0);
    fs::copy_file(fixture_dir + "/stack.debug", tmp_ + "/served/other-id");
    fs::copy_file(fixture_dir + "/prog.debug", tmp_ + "/served/damaged");
    fs::resize_file(tmp_ + "/served/damaged", fs::file_size(tmp_ + "/served/damaged") / 2);
    server_ = std::make_unique<background_process>(std::vector<std::string>{"/usr/bin/python3", fault_server,
                                                                            tmp_ + "/served"},
                                                   tmp_ + "/server");
    ASSERT_TRUE(server_->wait_for([&] { return !server_->out().empty() && server_->out().back() == '\n'; }, 20))
        << server_->err();
    port_ = static_cast<uint16_t>(std::stoi(server_->out()));
  }

  void TearDown() override {
    server_.reset();
    if (!tmp_.empty()) fs::remove_all(tmp_);
  }

  std::string url(const std::string &mode) const { return "http://127.0.0.1:" + std::to_string(port_) + "/" + mode; }

  // kprobe-probe `args` with `urls` as the only source of debug files.
  run_result kpp(const std::string &urls, const std::vector<std::string> &env, const std::vector<std::string> &args,
                 const run_options &as = {}) {
    std::vector<std::string> argv{"/usr/bin/env", "KPP_DEBUG_ROOT=" + tmp_ + "/empty-debug-root",
                                  "DEBUGINFOD_CACHE_PATH=" + cache(), "HOME=" + tmp_, "DEBUGINFOD_URLS=" + urls};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(kpp_bin);
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, as);
  }
  // -D on the stripped program.
  run_result define(const std::string &urls, const std::vector<std::string> &env = {}, const run_options &as = {}) {
    return kpp(urls, env, {"--no-cache", "-x", fixture_dir + "/prog.stripped", "-D", "total items"}, as);
  }
  std::string cache() const { return tmp_ + "/client-cache"; }
  // What the cache holds for the build-id, beside a remembered failure.
  std::vector<std::pair<std::string, uintmax_t>> cached_files() {
    std::vector<std::pair<std::string, uintmax_t>> out;
    for (auto &f : files_under(cache()))
      if (f.first.find("/.kpp-failed-") == std::string::npos) out.push_back(f);
    return out;
  }
  int requests(const std::string &mode) {
    std::string body = http_get(port_, "/count").body;
    std::smatch m;
    std::regex count("\"" + mode + "\": ([0-9]+)");
    return std::regex_search(body, m, count) ? std::stoi(m[1].str()) : 0;
  }

  std::string tmp_, id_;
  uint16_t port_ = 0;
  std::unique_ptr<background_process> server_;
};

TEST_F(DebuginfodFaults, AStallingServerIsLeftAfterTheTimeoutAndTheFailureIsRemembered) {
  run_result first = define(url("stall"), {"DEBUGINFOD_TIMEOUT=2"});
  EXPECT_EQ(first.status, 1) << describe(first);
  EXPECT_NE(first.err.find("no answer within 2 s (DEBUGINFOD_TIMEOUT)"), std::string::npos) << first.err;
  EXPECT_LT(first.total_s, 4.0) << describe(first);
  EXPECT_TRUE(cached_files().empty());
  // The next run does not pay again: the failure is remembered, and said so.
  run_result second = define(url("stall"), {"DEBUGINFOD_TIMEOUT=2"});
  EXPECT_EQ(second.status, 1) << describe(second);
  EXPECT_LT(second.total_s, 1.0) << describe(second);
  EXPECT_NE(second.err.find("no answer within 2 s (DEBUGINFOD_TIMEOUT) (remembered from "), std::string::npos)
      << second.err;
  EXPECT_EQ(requests("stall"), 1);
  // Other servers are asked: the good one answers, and the failure is forgotten.
  run_result other = define(url("file/prog.debug"));
  EXPECT_EQ(other.status, 0) << describe(other);
}

TEST_F(DebuginfodFaults, ADefaultTimeoutBoundsAStallWithoutAnySetting) {
  run_result r = define(url("stall"));
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("no answer within 10 s (DEBUGINFOD_TIMEOUT)"), std::string::npos) << r.err;
  EXPECT_LT(r.total_s, 12.0) << describe(r);
}

TEST_F(DebuginfodFaults, AnEndlessTrickleIsLeftAfterTheTimeout) {
  run_result r = define(url("trickle"), {"DEBUGINFOD_TIMEOUT=2"});
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("bytes in 2 s (DEBUGINFOD_TIMEOUT)"), std::string::npos) << r.err;
  EXPECT_LT(r.total_s, 4.0) << describe(r);
  EXPECT_TRUE(cached_files().empty());
}

TEST_F(DebuginfodFaults, AnEndlessStreamStopsAtTheSizeAndTimeBounds) {
  // Announced as 50 GB: refused on the announcement.
  run_result claimed = define(url("flood"), {"DEBUGINFOD_MAXSIZE=10000000"});
  EXPECT_EQ(claimed.status, 1) << describe(claimed);
  EXPECT_NE(claimed.err.find("announced as larger than 10000000 bytes (DEBUGINFOD_MAXSIZE)"), std::string::npos)
      << claimed.err;
  // Without a length: stopped at the bound, on the bytes that came.
  run_result unannounced = define(url("stream"), {"DEBUGINFOD_MAXSIZE=10000000"});
  EXPECT_EQ(unannounced.status, 1) << describe(unannounced);
  EXPECT_NE(unannounced.err.find("larger than 10000000 bytes (DEBUGINFOD_MAXSIZE), stopped there"), std::string::npos)
      << unannounced.err;
  EXPECT_LT(unannounced.total_s, 5.0) << describe(unannounced);
  // And the whole time: DEBUGINFOD_MAXTIME.
  fs::remove_all(cache());
  run_result timed = define(url("stream"), {"DEBUGINFOD_MAXTIME=1"});
  EXPECT_EQ(timed.status, 1) << describe(timed);
  EXPECT_NE(timed.err.find("not done after 1 s (DEBUGINFOD_MAXTIME)"), std::string::npos) << timed.err;
  EXPECT_LT(timed.total_s, 3.0) << describe(timed);
  EXPECT_TRUE(cached_files().empty());
}

TEST_F(DebuginfodFaults, AGzipBombIsCountedInflated) {
  // 1 MB on the wire (1,043,656 bytes), 1 GiB once inflated; the server
  // takes seconds to build it, hence the longer timeout.
  run_result r = define(url("gzipbomb"), {"DEBUGINFOD_MAXSIZE=10000000", "DEBUGINFOD_TIMEOUT=60"});
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("larger than 10000000 bytes (DEBUGINFOD_MAXSIZE), stopped there"), std::string::npos) << r.err;
  EXPECT_TRUE(cached_files().empty());
}

TEST_F(DebuginfodFaults, RedirectsAreLimitedAndOnlyToHttp) {
  run_result loop = define(url("redirect-loop"));
  EXPECT_EQ(loop.status, 1) << describe(loop);
  EXPECT_NE(loop.err.find("more than 4 redirects"), std::string::npos) << loop.err;
  EXPECT_EQ(requests("redirect-loop"), 5);  // the request and 4 redirects
  run_result ftp = define(url("redirect-ftp"));
  EXPECT_EQ(ftp.status, 1) << describe(ftp);
  EXPECT_NE(ftp.err.find("a redirect to another protocol than http or https, refused"), std::string::npos) << ftp.err;
}

TEST_F(DebuginfodFaults, HttpErrorsAreReportedAsWhatTheyAre) {
  run_result r = define(url("status/500") + " " + url("status/403") + " " + url("status/404"));
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find(url("status/500") + ": HTTP 500 (Internal Server Error)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(url("status/403") + ": HTTP 403 (Forbidden)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(url("status/404") + ": not on the server"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not on the servers"), std::string::npos) << r.err;
  // elfutils' client reads file:// URLs; ours asks http and https servers only.
  run_result file = define("file://" + tmp_ + "/served");
  EXPECT_EQ(file.status, 1) << describe(file);
  EXPECT_NE(file.err.find("not an http or https URL (no other is asked)"), std::string::npos) << file.err;
}

TEST_F(DebuginfodFaults, WrongAnswersAreRefusedAndTheNextServerIsAsked) {
  run_result local = run_program({kpp_bin, "--no-cache", "-x", fixture_dir + "/prog", "-D", "total items"});
  ASSERT_EQ(local.status, 0) << describe(local);
  std::string urls = url("html") + " " + url("file/other-id") + " " + url("file/other") + " " + url("file/damaged") +
                     " " + url("file/prog.debug");
  run_result r = define(urls);
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_EQ(std::regex_replace(r.out, std::regex("prog.stripped"), "prog"), local.out);
  // The one file kept is the debug file of the build-id asked for.
  auto kept = cached_files();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].first, cache() + "/" + id_ + "/debuginfo");
  EXPECT_EQ(build_id_of(kept[0].first), id_);
  EXPECT_EQ(requests("html"), 1);
  // Each refusal, when all servers fail, names what came.
  fs::remove_all(cache());
  run_result failed = define(url("html") + " " + url("file/other-id") + " " + url("file/other") + " " +
                             url("file/damaged"));
  EXPECT_EQ(failed.status, 1) << describe(failed);
  for (const char *why : {"an HTML page (Content-Type text/html", "the file of build-id ", "an ELF file without a build-id",
                          "not an ELF file that can be read"})
    EXPECT_NE(failed.err.find(why), std::string::npos) << why << "\n" << failed.err;
}

TEST_F(DebuginfodFaults, AWrongFileInTheCacheIsRemovedAndTheServersAskedAgain) {
  fs::create_directories(cache() + "/" + id_);
  fs::copy_file(tmp_ + "/served/other-id", cache() + "/" + id_ + "/debuginfo");
  run_result r = define(url("file/prog.debug"));
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_EQ(build_id_of(cache() + "/" + id_ + "/debuginfo"), id_);
  EXPECT_EQ(requests("file"), 1);
}

TEST_F(DebuginfodFaults, AStopDuringADownloadLeavesNoPartOfItInTheCache) {
  for (int sig : {SIGINT, SIGTERM, SIGKILL}) {
    fs::remove_all(cache());
    run_options stop;
    stop.signal = sig;
    stop.signal_after_s = 1.0;
    stop.signal_child = sig == SIGKILL;  // as the OOM killer would end the working process
    auto start = std::chrono::steady_clock::now();
    run_result r = define(url("trickle"), {"DEBUGINFOD_TIMEOUT=60"}, stop);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(r.status, 0) << describe(r);
    EXPECT_LT(seconds, 1.3) << "signal " << sig << " took " << seconds - 1.0 << " s to end it\n" << describe(r);
    EXPECT_TRUE(files_under(cache()).empty()) << "signal " << sig << ": " << files_under(cache()).front().first;
  }
}

// The tracefs directory with uprobe_events, or "" when there is none.
std::string uprobe_tracing_dir() {
  for (const char *d : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"})
    if (access((std::string(d) + "/uprobe_events").c_str(), W_OK) == 0) return d;
  return "";
}

// A uprobe on the stripped stack fixture's total(), added with its DWARF
// from a local debug tree; the traces then have only debuginfod to name
// its frames with.
class StackFrames : public DebuginfodFaults {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to add a uprobe";
    if (uprobe_tracing_dir().empty()) GTEST_SKIP() << "no uprobe_events in tracefs";
    DebuginfodFaults::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    group_ = "kpp30net" + std::to_string(getpid());
    std::string id = build_id_of(fixture_dir + "/stack.stripped");
    ASSERT_FALSE(id.empty());
    std::string local = tmp_ + "/debug-root/.build-id/" + id.substr(0, 2);
    fs::create_directories(local);
    fs::copy_file(fixture_dir + "/stack.debug", local + "/" + id.substr(2) + ".debug");
    run_result add = run_program({"/usr/bin/env", "KPP_DEBUG_ROOT=" + tmp_ + "/debug-root", "DEBUGINFOD_URLS=", kpp_bin,
                                  "-q", "--no-cache", "-x", fixture_dir + "/stack.stripped", "--add",
                                  group_ + ":tot=total"});
    ASSERT_EQ(add.status, 0) << describe(add);
  }
  void TearDown() override {
    if (!group_.empty()) {
      run_result del = run_program({kpp_bin, "-q", "-d", group_ + ":*"});
      EXPECT_EQ(del.status, 0) << describe(del);
    }
    DebuginfodFaults::TearDown();
  }
  // trace --stack --duration 2 on the fixture, its frames' debug file from `urls`.
  run_result trace(const std::string &urls) {
    return kpp(urls, {}, {"trace", "--stack", "-e", group_ + ":*", "--duration", "2", "--",
                          fixture_dir + "/stack.stripped"});
  }
  static int count(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  // The same trace with the debug file here (no network at all): what the
  // machine takes for it, start-up and clean-up included, beside the 3 s
  // the trace may take.
  double bound() {
    run_result local = kpp("", {"KPP_DEBUG_ROOT=" + tmp_ + "/debug-root"},
                           {"trace", "--stack", "-e", group_ + ":*", "--duration", "2", "--",
                            fixture_dir + "/stack.stripped"});
    return std::max(3.0, local.total_s + 0.5);
  }
  std::string group_;
};

TEST_F(StackFrames, AStallingServerNeitherDelaysTheTraceNorLosesEvents) {
  // Nothing set: the download's own timeout (10 s) is far beyond the trace.
  run_result r = trace(url("stall"));
  EXPECT_EQ(r.status, 128 + SIGTERM) << describe(r);  // the fixture's, ended by the trace's end
  double limit = bound();
  EXPECT_LE(r.total_s, limit) << describe(r);
  EXPECT_EQ(r.err.find("lost"), std::string::npos) << r.err;
  // An event every 2 ms for 2 s: each one shown, with its frames (unnamed:
  // the program has no symbols and its debug file never came).
  int events = count(r.out, group_ + ":tot");
  EXPECT_GT(events, 300) << describe(r);
  EXPECT_NE(r.err.find(std::to_string(events) + " events"), std::string::npos) << r.err;
  EXPECT_GE(count(r.out, "stack.stripped]"), events) << r.out.substr(0, 2000);
  EXPECT_EQ(count(r.out, " total+"), 0) << r.out.substr(0, 2000);
  // The download was stopped at the end: nothing kept, nothing remembered.
  EXPECT_TRUE(files_under(cache()).empty()) << files_under(cache()).front().first;
  std::printf("against a stalling server: %d events in %.2f s, none lost (the same trace without a server: bound %.2f s)\n",
              events, r.total_s, limit);
}

TEST_F(StackFrames, FramesWaitForTheirSymbolsWhileTheEventsKeepComing) {
  // The debug file comes after 1 s: the events of that second wait for it.
  run_result r = trace(url("slow/1/stack.debug"));
  EXPECT_EQ(r.status, 128 + SIGTERM) << describe(r);
  EXPECT_LE(r.total_s, bound()) << describe(r);
  EXPECT_EQ(r.err.find("lost"), std::string::npos) << r.err;
  int events = count(r.out, group_ + ":tot");
  EXPECT_GT(events, 300) << describe(r);
  // Every event's frame is named from the fetched DWARF, the first ones too
  // (the line is the function's first, as gdb's `info line total` gives it).
  run_result gdb = run_program({"/usr/bin/gdb", "-nx", "-batch", "-ex", "info line total", fixture_dir + "/stack"});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(gdb.out, m, std::regex(R"(Line ([0-9]+) of ".*stack_fixture\.c")"))) << gdb.out;
  // Every event has its user stack (perf lost none: no "lost" above), its frame named.
  int with_stack = 0;  // event lines followed by a frame line (indented by four)
  for (size_t at = r.out.find(":tot\n"); at != std::string::npos; at = r.out.find(":tot\n", at + 1))
    if (r.out.compare(at + 5, 4, "    ") == 0) ++with_stack;
  EXPECT_EQ(with_stack, events) << r.err << r.out.substr(0, 2000);
  EXPECT_EQ(r.err.find("came without a user stack"), std::string::npos) << r.err;
  EXPECT_EQ(count(r.out, " total+0x0 "), with_stack) << r.out.substr(0, 2000);
  EXPECT_EQ(count(r.out, "stack_fixture.c:" + m[1].str() + "\n"), with_stack) << r.out.substr(0, 2000);
  EXPECT_EQ(build_id_of(cache() + "/" + build_id_of(fixture_dir + "/stack.stripped") + "/debuginfo"),
            build_id_of(fixture_dir + "/stack.stripped"));
}

}  // namespace
