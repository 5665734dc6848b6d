// debuginfod end to end: a real elfutils debuginfod server, started here on
// a free port and queried at 127.0.0.1, serves the separate debug file of a
// stripped fixture (no symbols, no .gnu_debuglink: only its build-id leads
// there). kprobe-probe must define probes on the stripped program exactly
// as on the program with its DWARF, and name the server and the build-id
// when the server does not have it. The client's cache is private to each
// test (DEBUGINFOD_CACHE_PATH).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../e2e/subprocess.h"
#include "../export/background_process.h"
#include "../export/http_client.h"

namespace {

namespace fs = std::filesystem;

const std::string kpp_bin = KPP_BIN;
const std::string fixture_dir = KPP_DEBUGINFOD_FIXTURE_DIR;
const std::string debuginfod_bin = "/usr/bin/debuginfod";

std::string describe(const run_result &r) {
  return "exit " + std::to_string(r.status) + "\n--- stdout:\n" + r.out + "--- stderr:\n" + r.err;
}

uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
  getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// The build-id as binutils reads it (the oracle: not our ELF reader).
std::string build_id_of(const std::string &path) {
  run_result r = run_program({"/usr/bin/readelf", "-n", path});
  std::smatch m;
  static const std::regex id(R"(Build ID: ([0-9a-f]+))");
  return std::regex_search(r.out, m, id) ? m[1].str() : "";
}

class Debuginfod : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(debuginfod_bin.c_str(), X_OK) != 0)
      GTEST_SKIP() << "no " << debuginfod_bin << " (Debian package debuginfod; scripts/install-deps.sh --tests)";
    char dir[] = "/tmp/kpp-debuginfod-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    tmp_ = dir;
    fs::create_directories(tmp_ + "/served");
    fs::create_directories(tmp_ + "/empty-debug-root");
    build_id_ = build_id_of(fixture_dir + "/prog.stripped");
    ASSERT_FALSE(build_id_.empty()) << "the fixture has no build-id";
    ASSERT_EQ(build_id_of(fixture_dir + "/prog.debug"), build_id_);
  }

  void TearDown() override {
    server_.reset();
    if (!tmp_.empty()) fs::remove_all(tmp_);
  }

  // Starts debuginfod on a free port over tmp/served; with `wait_for_id`,
  // until it answers for that build-id (it scans in the background).
  void start_server(const std::string &wait_for_id) {
    port_ = free_port();
    server_ = std::make_unique<background_process>(
        std::vector<std::string>{debuginfod_bin, "-F", "-p", std::to_string(port_), "-d", tmp_ + "/db.sqlite", "-t", "0",
                                 "-g", "0", tmp_ + "/served"},
        tmp_ + "/debuginfod");
    std::string target = wait_for_id.empty() ? "/metrics" : "/buildid/" + wait_for_id + "/debuginfo";
    ASSERT_TRUE(server_->wait_for([&] { return http_get(port_, target).status == 200; }, 60))
        << "debuginfod did not serve " << target << ":\n" << server_->err().substr(0, 4000);
  }

  // kprobe-probe with the server as its only source of debug files.
  run_result kpp(std::vector<std::string> args, bool through_server) {
    std::vector<std::string> argv{"/usr/bin/env", "KPP_DEBUG_ROOT=" + tmp_ + "/empty-debug-root",
                                  "DEBUGINFOD_CACHE_PATH=" + tmp_ + "/client-cache", "DEBUGINFOD_TIMEOUT=20",
                                  "DEBUGINFOD_PROGRESS=", "HOME=" + tmp_};
    argv.push_back(through_server ? "DEBUGINFOD_URLS=" + url() : "DEBUGINFOD_URLS=");
    argv.push_back(kpp_bin);
    argv.push_back("--no-cache");
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::string tmp_;
  std::string build_id_;
  uint16_t port_ = 0;
  std::unique_ptr<background_process> server_;
};

TEST_F(Debuginfod, AStrippedProgramIsDefinedThroughTheServerExactlyAsWithItsOwnDwarf) {
  fs::copy_file(fixture_dir + "/prog.debug", tmp_ + "/served/prog.debug");
  start_server(build_id_);
  const std::vector<std::string> specs = {"g:body=total:3 w=items->weight i sum", "g:entry=total items count",
                                          "g:ret=total%return $retval"};
  for (const std::string &spec : specs) {
    run_result local = kpp({"-x", fixture_dir + "/prog", "-D", spec}, false);
    ASSERT_EQ(local.status, 0) << spec << "\n" << describe(local);
    run_result served = kpp({"-x", fixture_dir + "/prog.stripped", "-D", spec}, true);
    ASSERT_EQ(served.status, 0) << spec << "\n" << describe(served);
    // The same definition, on the stripped program's path.
    std::string expected = std::regex_replace(local.out, std::regex(fixture_dir + "/prog:"), fixture_dir + "/prog.stripped:");
    EXPECT_EQ(served.out, expected) << spec;
  }
  // It came from the server: the client's cache holds it now.
  EXPECT_TRUE(fs::exists(tmp_ + "/client-cache/" + build_id_ + "/debuginfo"));
  // Without the server the stripped program has no DWARF at all.
  run_result alone = kpp({"-x", fixture_dir + "/prog.stripped", "-D", specs[1]}, false);
  EXPECT_NE(alone.status, 0) << describe(alone);
}

TEST_F(Debuginfod, AMissingDebugFileNamesTheServerAndTheBuildId) {
  start_server("");  // serves nothing
  run_result r = kpp({"-x", fixture_dir + "/prog.stripped", "-D", "total items"}, true);
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("cannot fetch the debug info of build-id " + build_id_ + " from debuginfod (" + url() +
                       "): not on the servers"),
            std::string::npos)
      << r.err;
}

TEST_F(Debuginfod, AServerThatIsNotThereIsNamedToo) {
  port_ = free_port();  // nobody listens
  run_result r = kpp({"-x", fixture_dir + "/prog.stripped", "-D", "total items"}, true);
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("of build-id " + build_id_ + " from debuginfod (" + url() + ")"), std::string::npos) << r.err;
}

}  // namespace
