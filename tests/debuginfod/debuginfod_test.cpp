// debuginfod end to end: a real elfutils debuginfod server, started here on
// a free port and queried at 127.0.0.1, serves the separate debug file of a
// stripped fixture (no symbols, no .gnu_debuglink: only its build-id leads
// there). kprobe-probe must define probes on the stripped program exactly
// as on the program with its DWARF, and name the server and the build-id
// when the server does not have it. The client's cache is private to each
// test (DEBUGINFOD_CACHE_PATH).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
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
const std::string fixture_source = KPP_DEBUGINFOD_FIXTURE_SOURCE;
const std::string debuginfod_bin = "/usr/bin/debuginfod";
constexpr uid_t nobody_uid = 65534;

std::string describe(const run_result &r) {
  return "exit " + std::to_string(r.status) + "\n--- stdout:\n" + r.out + "--- stderr:\n" + r.err;
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
  run_result kpp(std::vector<std::string> args, bool through_server, const run_options &as = {}) {
    std::vector<std::string> argv{"/usr/bin/env", "KPP_DEBUG_ROOT=" + tmp_ + "/empty-debug-root",
                                  "DEBUGINFOD_CACHE_PATH=" + tmp_ + "/client-cache", "DEBUGINFOD_TIMEOUT=20",
                                  "DEBUGINFOD_PROGRESS=", "HOME=" + tmp_};
    argv.push_back(through_server ? "DEBUGINFOD_URLS=" + url() : "DEBUGINFOD_URLS=");
    argv.push_back(kpp_bin);
    argv.push_back("--no-cache");
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, as);
  }

  // Builds the fixture from a copy of its source in a directory only root
  // can read, as the server's machine has it and the client's has not:
  // tmp/private/prog, tmp/served/prog.debug, tmp/public/prog.stripped.
  // Returns the source's path as DWARF records it.
  std::string build_private_fixture() {
    for (const char *d : {"/private", "/public"}) fs::create_directories(tmp_ + d);
    fs::permissions(tmp_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(tmp_ + "/private", fs::perms::owner_all);
    std::string source = tmp_ + "/private/debuginfod_fixture.c";
    fs::copy_file(fixture_source, source);
    for (std::vector<std::string> step :
         {std::vector<std::string>{"/usr/bin/gcc", "-O0", "-g", "-Wl,--build-id", "-o", tmp_ + "/private/prog", source},
          {"/usr/bin/objcopy", "--only-keep-debug", tmp_ + "/private/prog", tmp_ + "/served/prog.debug"},
          {"/usr/bin/objcopy", "--strip-all", tmp_ + "/private/prog", tmp_ + "/public/prog.stripped"}}) {
      run_result r = run_program(step);
      if (r.status != 0) {
        ADD_FAILURE() << step[0] << " failed:\n" << describe(r);
        return "";
      }
    }
    fs::create_directories(tmp_ + "/client-cache");
    if (chown((tmp_ + "/client-cache").c_str(), nobody_uid, nobody_uid) != 0) ADD_FAILURE() << "chown";
    return source;
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

TEST_F(Debuginfod, ALargeDownloadShowsItsProgressOnATerminal) {
  if (access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/script to give the tool a terminal";
  // The debug file, padded past the 4 MB from which progress is shown.
  std::ofstream(tmp_ + "/pad", std::ios::binary) << std::string(6 << 20, 'p');
  run_result pad = run_program({"/usr/bin/objcopy", "--add-section", ".kpp_pad=" + tmp_ + "/pad",
                                fixture_dir + "/prog.debug", tmp_ + "/served/prog.debug"});
  ASSERT_EQ(pad.status, 0) << describe(pad);
  start_server(build_id_);
  std::string command;
  for (const std::string &word : std::vector<std::string>{"/usr/bin/env", "KPP_DEBUG_ROOT=" + tmp_ + "/empty-debug-root",
                                  "DEBUGINFOD_CACHE_PATH=" + tmp_ + "/client-cache", "DEBUGINFOD_URLS=" + url(),
                                  "HOME=" + tmp_, kpp_bin, "--no-cache", "-x", fixture_dir + "/prog.stripped", "-D",
                                  std::string("total items")})
    command += "'" + word + "' ";
  run_result on_tty = run_program({"/usr/bin/script", "-qec", command, "/dev/null"});
  ASSERT_EQ(on_tty.status, 0) << describe(on_tty);
  EXPECT_NE(on_tty.out.find("downloading the debug info of build-id " + build_id_), std::string::npos) << on_tty.out;
  EXPECT_NE(on_tty.out.find(" MB"), std::string::npos) << on_tty.out;
  // Not on a pipe: the definition alone.
  fs::remove_all(tmp_ + "/client-cache");
  run_result piped = kpp({"-x", fixture_dir + "/prog.stripped", "-D", "total items"}, true);
  ASSERT_EQ(piped.status, 0) << describe(piped);
  EXPECT_EQ(piped.err, "");
}

// The running kernel's build-id, from its own notes (/sys/kernel/notes).
std::string running_kernel_build_id() {
  std::ifstream in("/sys/kernel/notes", std::ios::binary);
  std::string notes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at = 0; at + 12 <= notes.size();) {
    uint32_t namesz, descsz, type;
    std::memcpy(&namesz, notes.data() + at, 4);
    std::memcpy(&descsz, notes.data() + at + 4, 4);
    std::memcpy(&type, notes.data() + at + 8, 4);
    size_t desc = at + 12 + ((namesz + 3) & ~3u);
    if (desc + descsz > notes.size()) break;
    if (type == 3 && namesz == 4 && notes.compare(at + 12, 3, "GNU") == 0) {
      std::string hex;
      for (size_t i = 0; i < descsz; ++i) {
        char b[3];
        std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(notes[desc + i]));
        hex += b;
      }
      return hex;
    }
    at = desc + ((descsz + 3) & ~3u);
  }
  return "";
}

TEST_F(Debuginfod, TheRunningKernelsDebugFileIsFetchedByItsBuildId) {
  std::string kernel_id = running_kernel_build_id();
  if (kernel_id.empty()) GTEST_SKIP() << "no build-id in /sys/kernel/notes";
  port_ = free_port();
  run_result local = kpp({"-F"}, false);
  if (local.status == 0) GTEST_SKIP() << "this machine has a DWARF vmlinux of its own";
  // No DWARF vmlinux of this kernel exists to serve: serve the fixture's
  // debug file under the kernel's build-id. Its functions listed by -F
  // (which reads the kernel's DWARF) can only have come from the server.
  std::string note(12, '\0');
  uint32_t header[3] = {4, static_cast<uint32_t>(kernel_id.size() / 2), 3};
  std::memcpy(note.data(), header, sizeof header);
  note += std::string("GNU\0", 4);
  for (size_t i = 0; i < kernel_id.size(); i += 2) note += static_cast<char>(std::stoi(kernel_id.substr(i, 2), nullptr, 16));
  std::ofstream(tmp_ + "/note", std::ios::binary) << note;
  run_result relabel = run_program({"/usr/bin/objcopy", "--remove-section", ".note.gnu.build-id", "--add-section",
                                    ".note.gnu.build-id=" + tmp_ + "/note", fixture_dir + "/prog.debug",
                                    tmp_ + "/served/vmlinux.debug"});
  ASSERT_EQ(relabel.status, 0) << describe(relabel);
  ASSERT_EQ(build_id_of(tmp_ + "/served/vmlinux.debug"), kernel_id);
  start_server(kernel_id);
  run_result served = kpp({"-F"}, true);
  ASSERT_EQ(served.status, 0) << describe(served);
  EXPECT_NE(("\n" + served.out).find("\ntotal\n"), std::string::npos) << served.out;
  EXPECT_NE(("\n" + served.out).find("\nmain\n"), std::string::npos) << served.out;
}

TEST_F(Debuginfod, AFileInTheCacheThatIsNotTheOneAskedForIsRemovedAndTheServerAsked) {
  if (access("/usr/bin/gcc", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/gcc to build another program with";
  // Another build's debug file where the cache keeps this build-id's, as a
  // lying server (or an older client that kept what it was sent) leaves it.
  run_result other = run_program({"/usr/bin/gcc", "-O1", "-g", "-Wl,--build-id", "-o", tmp_ + "/other", fixture_source});
  ASSERT_EQ(other.status, 0) << describe(other);
  std::string other_id = build_id_of(tmp_ + "/other");
  ASSERT_NE(other_id, build_id_);
  std::string cached = tmp_ + "/client-cache/" + build_id_ + "/debuginfo";
  fs::create_directories(tmp_ + "/client-cache/" + build_id_);
  fs::copy_file(tmp_ + "/other", cached);
  // No server to ask: refused, removed, and said so.
  port_ = free_port();
  run_result alone = kpp({"-x", fixture_dir + "/prog.stripped", "-D", "total items"}, true);
  EXPECT_EQ(alone.status, 1) << describe(alone);
  EXPECT_NE(alone.err.find("removed the cached " + cached + " (the file of build-id " + other_id + ", not " + build_id_ +
                           ")"),
            std::string::npos)
      << alone.err;
  EXPECT_FALSE(fs::exists(cached));
  // Put back, with elfutils' server having the right one: that one replaces it.
  fs::copy_file(tmp_ + "/other", cached);
  fs::copy_file(fixture_dir + "/prog.debug", tmp_ + "/served/prog.debug");
  start_server(build_id_);
  run_result served = kpp({"-x", fixture_dir + "/prog.stripped", "-D", "total items"}, true);
  EXPECT_EQ(served.status, 0) << describe(served);
  EXPECT_EQ(build_id_of(cached), build_id_);
}

TEST_F(Debuginfod, LineListingsReadTheSourceFromTheServerWhenItIsNotHere) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to hide the source from an unprivileged client";
  if (access("/usr/bin/gcc", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/gcc to build the fixture with";
  std::string source = build_private_fixture();
  ASSERT_FALSE(source.empty());
  std::string id = build_id_of(tmp_ + "/public/prog.stripped");
  ASSERT_FALSE(id.empty());
  start_server(id);
  ASSERT_TRUE(server_->wait_for([&] { return http_get(port_, "/buildid/" + id + "/source" + source).status == 200; }, 30))
      << "debuginfod does not serve " << source;
  run_options nobody;
  nobody.uid = nobody_uid;
  // The client (uid nobody) cannot read tmp/private: only the server has the source.
  run_result here = kpp({"-x", tmp_ + "/public/prog.stripped", "-L", "total"}, true, nobody);
  if (here.status == 126) GTEST_SKIP() << "cannot switch to uid " << nobody_uid;
  ASSERT_EQ(here.status, 0) << describe(here);
  EXPECT_NE(here.out.find("sum += items[i].weight; /* probe:total_body */"), std::string::npos) << here.out;
  // The control: with its DWARF here but no server, the client has no source to show.
  fs::copy_file(tmp_ + "/private/prog", tmp_ + "/public/prog.full");
  run_result alone = kpp({"-x", tmp_ + "/public/prog.full", "-L", "total"}, false, nobody);
  EXPECT_EQ(alone.out.find("sum += items[i].weight"), std::string::npos) << alone.out << alone.err;
  EXPECT_NE(alone.err.find(source), std::string::npos) << "names the source it could not read\n" << alone.err;
  // A lazy pattern reads the same source and finds that line.
  run_result lazy = kpp({"-x", tmp_ + "/public/prog.stripped", "-D", "g:lazy=total;sum+=items*"}, true, nobody);
  run_result by_line = kpp({"-x", tmp_ + "/public/prog.stripped", "-D", "g:lazy=total:3"}, true, nobody);
  ASSERT_EQ(lazy.status, 0) << describe(lazy);
  EXPECT_EQ(lazy.out, by_line.out);
}

}  // namespace
