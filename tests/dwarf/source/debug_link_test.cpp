// Separate debug files found by build-id and by .gnu_debuglink: the stripped
// program gives the same -D definitions as the unstripped one (with its own
// path in them: uprobes go on the program), a wrong CRC is refused, and a
// program with no debug file anywhere gets every path tried in its error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "dwarf/debug_info.h"
#include "dwarf/source/debug_link.h"
#include "tests/common/run_command.h"

namespace {

namespace fs = std::filesystem;
using kpp::dwarf::DebugInfo;
using kpp::test::CommandRun;
using kpp::test::run_command;
using kpp::test::Stderr;

std::string quote(const std::string &s) { return "'" + s + "'"; }

std::string replace_all(std::string text, const std::string &from, const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string build_id_of(const std::string &path) {
  auto info = DebugInfo::open(path);
  return info ? (*info)->elf().build_id() : "";
}

// A temporary directory holding a copy of a fixture, its debug file and a
// debug root; KPP_DEBUG_ROOT points at that root for the test's duration.
class DebugLinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/kpp-debuglink-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    root_ = dir_ + "/root";
    fs::create_directories(root_);
    setenv("KPP_DEBUG_ROOT", root_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("KPP_DEBUG_ROOT");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Copies fixture `name` to DIR/bin/prog and makes DIR/prog.debug from it.
  std::string prepare(const std::string &name) {
    // The unstripped copy has the same name: the default group is named after it.
    std::string fixture = std::string(KPP_DEBUGLINK_FIXTURE_DIR) + "/" + name;
    fs::create_directories(dir_ + "/bin");
    fs::create_directories(dir_ + "/full");
    original_ = dir_ + "/full/prog";
    fs::copy_file(fixture, original_, fs::copy_options::overwrite_existing);
    std::string prog = dir_ + "/bin/prog";
    fs::copy_file(fixture, prog, fs::copy_options::overwrite_existing);
    CommandRun keep = run_command(
        std::string(KPP_OBJCOPY) + " --only-keep-debug " + quote(prog) + " " + quote(dir_ + "/prog.debug"),
        Stderr::Merged);
    EXPECT_EQ(keep.status, 0) << keep.out;
    return prog;
  }
  void strip(const std::string &prog) {
    CommandRun s = run_command(std::string(KPP_STRIP) + " -g " + quote(prog), Stderr::Merged);
    EXPECT_EQ(s.status, 0) << s.out;
  }
  // Adds a .gnu_debuglink naming `debug_file` (its CRC taken from it now).
  void link(const std::string &prog, const std::string &debug_file) {
    CommandRun l = run_command(
        std::string(KPP_OBJCOPY) + " --add-gnu-debuglink=" + quote(debug_file) + " " + quote(prog), Stderr::Merged);
    EXPECT_EQ(l.status, 0) << l.out;
  }

  // The -D output for `spec`, with the program's path replaced by PROG.
  std::string definitions(const std::string &prog, const std::string &spec, bool verbose = false) {
    CommandRun r = run_command(std::string(KPP_BINARY) + " --no-cache" + (verbose ? " -v" : "") + " -x " + quote(prog) +
                                   " -D " + quote(spec),
                               Stderr::Merged);
    EXPECT_EQ(r.status, 0) << r.out;
    if (verbose) return r.out;
    return replace_all(r.out, fs::canonical(prog).string(), "PROG");
  }
  void expect_same_definitions(const std::string &prog) {
    for (const char *spec : {"walk p->value depth", "walk:4 total p", "main argc", "walk%return $retval"}) {
      std::string want = definitions(original_, spec);
      EXPECT_FALSE(want.empty());
      EXPECT_EQ(definitions(prog, spec), replace_all(want, fs::canonical(original_).string(), "PROG")) << spec;
    }
  }

  std::string dir_, root_, original_;
};

TEST_F(DebugLinkTest, FoundByBuildIdInTheDebugRoot) {
  for (const char *name : {"linked_O0", "linked_O2"}) {
    std::string prog = prepare(name);
    std::string id = build_id_of(prog);
    ASSERT_GT(id.size(), 2u);
    std::string target = root_ + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
    fs::create_directories(fs::path(target).parent_path());
    fs::rename(dir_ + "/prog.debug", target);
    strip(prog);

    auto info = DebugInfo::open(prog);
    ASSERT_TRUE(info) << info.error().message;
    EXPECT_EQ((*info)->elf().path(), prog);
    EXPECT_EQ((*info)->provenance().debug_path(), target);
    expect_same_definitions(prog);
    EXPECT_NE(definitions(prog, "walk depth", true).find("debug information from '" + target + "'"), std::string::npos);
  }
}

TEST_F(DebugLinkTest, FoundByDebugLinkNextToTheProgram) {
  // No build-id, so only the link can name the file.
  std::string prog = prepare("linked_nobuildid");
  EXPECT_EQ(build_id_of(prog), "");
  strip(prog);
  fs::rename(dir_ + "/prog.debug", dir_ + "/bin/prog.debug");
  link(prog, dir_ + "/bin/prog.debug");
  auto info = DebugInfo::open(prog);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ((*info)->provenance().debug_path(), dir_ + "/bin/prog.debug");
  expect_same_definitions(prog);
}

TEST_F(DebugLinkTest, FoundByDebugLinkInDotDebugAndUnderTheRoot) {
  std::string prog = prepare("linked_nobuildid");
  strip(prog);
  link(prog, dir_ + "/prog.debug");
  std::string real_bin = fs::canonical(dir_ + "/bin").string();
  std::string under_root = root_ + real_bin + "/prog.debug";
  fs::create_directories(fs::path(under_root).parent_path());
  fs::copy_file(dir_ + "/prog.debug", under_root);
  auto info = DebugInfo::open(prog);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ((*info)->provenance().debug_path(), under_root);

  fs::create_directories(dir_ + "/bin/.debug");
  fs::copy_file(dir_ + "/prog.debug", dir_ + "/bin/.debug/prog.debug");
  info = DebugInfo::open(prog);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ((*info)->provenance().debug_path(), real_bin + "/.debug/prog.debug");
  expect_same_definitions(prog);
}

TEST_F(DebugLinkTest, WrongCrcIsRefused) {
  std::string prog = prepare("linked_nobuildid");
  strip(prog);
  link(prog, dir_ + "/prog.debug");
  // Another build's debug file under the linked name: same ELF, other bytes.
  std::string other = dir_ + "/bin/prog.debug";
  fs::copy_file(dir_ + "/prog.debug", other);
  std::ofstream(other, std::ios::app) << "another build";
  // Not an error: the program is opened without DWARF, and the note says why.
  auto info = DebugInfo::open(prog);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_FALSE((*info)->has_dwarf());
  EXPECT_NE((*info)->provenance().dwarf_note().find(other + " (CRC32 does not match"), std::string::npos) << (*info)->provenance().dwarf_note();
}

TEST_F(DebugLinkTest, ErrorListsEveryPathTried) {
  std::string prog = prepare("linked_O2");
  std::string id = build_id_of(prog);
  strip(prog);
  link(prog, dir_ + "/prog.debug");
  fs::remove(dir_ + "/prog.debug");
  auto info = DebugInfo::open(prog);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_FALSE((*info)->has_dwarf());
  const std::string m = (*info)->provenance().dwarf_note();
  std::string real_bin = fs::canonical(dir_ + "/bin").string();
  for (const std::string &path : {root_ + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug",
                                  real_bin + "/prog.debug", real_bin + "/.debug/prog.debug",
                                  root_ + real_bin + "/prog.debug"})
    EXPECT_NE(m.find(path + " (not found)"), std::string::npos) << path << " in:\n" << m;
  // Its functions are still found, by the symbol table, with no DWARF behind them.
  std::vector<kpp::dwarf::Function> walk = (*info)->find_functions("walk", "", kpp::dwarf::InlineCopies::Include);
  ASSERT_EQ(walk.size(), 1u);
  EXPECT_TRUE(walk[0].decl_file.empty());
}

TEST_F(DebugLinkTest, NeitherBuildIdNorLink) {
  std::string prog = prepare("linked_nobuildid");
  strip(prog);
  auto info = DebugInfo::open(prog);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_FALSE((*info)->has_dwarf());
  EXPECT_NE((*info)->provenance().dwarf_note().find("neither a build-id nor a .gnu_debuglink"), std::string::npos)
      << (*info)->provenance().dwarf_note();
}

TEST(DebugLinkParts, ParsesTheSection) {
  std::string section("prog.debug\0\0\x78\x56\x34\x12", 16);
  auto link = kpp::dwarf::parse_debug_link(section, true);
  ASSERT_TRUE(link);
  EXPECT_EQ(link->name, "prog.debug");
  EXPECT_EQ(link->crc, 0x12345678u);
  EXPECT_EQ(kpp::dwarf::parse_debug_link(section, false)->crc, 0x78563412u);
  EXPECT_FALSE(kpp::dwarf::parse_debug_link(std::string("x\0\0\0\1", 5), true));  // CRC cut short
  EXPECT_FALSE(kpp::dwarf::parse_debug_link("no terminator", true));
}

// A program reached through a process's root (-p on a container's process):
// the container's own places first, whatever ROOT is, then ours; the
// program's directory is the one inside that root (not resolved from here).
TEST(DebugLinkParts, AProcessRootIsSearchedFirst) {
  kpp::dwarf::DebugLink link{"server.debug", 7};
  auto candidates =
      kpp::dwarf::separate_debug_candidates("/proc/4242/root/app/bin/server", "abcdef", link, "/srv/debug");
  std::vector<std::string> paths;
  for (const auto &c : candidates) paths.push_back(c.path);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "/proc/4242/root/usr/lib/debug/.build-id/ab/cdef.debug",
                       "/proc/4242/root/app/bin/server.debug",
                       "/proc/4242/root/app/bin/.debug/server.debug",
                       "/proc/4242/root/usr/lib/debug/app/bin/server.debug",
                       "/srv/debug/.build-id/ab/cdef.debug",
                       "/app/bin/server.debug",
                       "/app/bin/.debug/server.debug",
                       "/srv/debug/app/bin/server.debug",
                   }));
  // Not a process's root: as before.
  auto plain = kpp::dwarf::separate_debug_candidates("/proc/self/exe", "abcdef", std::nullopt, "/srv/debug");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].path, "/srv/debug/.build-id/ab/cdef.debug");
}

TEST(DebugLinkParts, RootFromTheEnvironment) {
  unsetenv("KPP_DEBUG_ROOT");
  EXPECT_EQ(kpp::dwarf::debug_root(), "/usr/lib/debug");
  setenv("KPP_DEBUG_ROOT", "/srv/debug/", 1);
  EXPECT_EQ(kpp::dwarf::debug_root(), "/srv/debug");
  unsetenv("KPP_DEBUG_ROOT");
}

}  // namespace
