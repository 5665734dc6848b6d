// A kernel module's --stack frames placed in its debug .ko
// (src/stack/module_placement.h, dwarf/elf/section_layout.h): for every byte of
// the functions checked, the frames (function, file:line, inlined calls)
// are those `addr2line -i -j SECTION` gives at the same section offset of
// the same .ko (as a return address: at the byte before). The .ko files: a module-like object linked with 'ld -r' by
// the build (same-named statics, code at 0 of both .text and .init.text),
// and the guest cache's loop.ko (Debian's, when tests/guest fetched it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "dwarf/debug_info.h"
#include "src/kernel/kallsyms.h"
#include "src/stack/frame_expansion.h"
#include "src/stack/module_placement.h"
#include "tests/common/run_command.h"

namespace kpp {
namespace {

struct KoFunction {
  std::string section, name;
  uint64_t value = 0, size = 0;
};

// The .ko's function symbols as objdump -t lists them.
std::vector<KoFunction> functions_of(const std::string &ko) {
  std::vector<KoFunction> out;
  std::istringstream lines(test::run_command("objdump -t '" + ko + "'").out);
  for (std::string line; std::getline(lines, line);) {
    // "0000000000003580 l     F .text\t000000000000081f lo_ioctl"
    if (line.size() < 18 || line.find(" F ") == std::string::npos) continue;
    std::istringstream words(line.substr(line.find(" F ") + 3));
    KoFunction f;
    std::string size;
    if (!(words >> f.section >> size >> f.name)) continue;
    f.value = std::stoull(line.substr(0, 16), nullptr, 16);
    f.size = std::stoull(size, nullptr, 16);
    out.push_back(f);
  }
  return out;
}

// One frame as both sides name it.
struct Named {
  std::string function, file;
  int line = 0;
  bool operator==(const Named &o) const = default;
};

std::ostream &operator<<(std::ostream &os, const Named &n) { return os << n.function << " " << n.file << ":" << n.line; }

// addr2line's frames at each of `offsets` of `section`, innermost first; a
// file is kept as addr2line prints it (relative to the unit's directory).
std::map<uint64_t, std::vector<Named>> addr2line(const std::string &ko, const std::string &section,
                                                 const std::vector<uint64_t> &offsets) {
  std::string command = "addr2line -a -f -i -e '" + ko + "' -j '" + section + "'";
  for (uint64_t o : offsets) command += " 0x" + (std::stringstream() << std::hex << o).str();
  std::map<uint64_t, std::vector<Named>> out;
  std::istringstream lines(test::run_command(command).out);
  uint64_t at = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("0x", 0) == 0) {
      at = std::stoull(line, nullptr, 16);
      out[at];
      continue;
    }
    std::string place;
    if (!std::getline(lines, place)) break;
    if (auto d = place.find(" (discriminator"); d != std::string::npos) place.resize(d);
    auto colon = place.rfind(':');
    Named n{line, place.substr(0, colon), std::atoi(place.c_str() + colon + 1)};
    if (n.function == "??") continue;  // no function there: nothing to compare
    out[at].push_back(n);
  }
  return out;
}

// Our frames of the code at `link`, named as addr2line names `theirs`: our
// files are absolute (the unit's directory before addr2line's path).
std::vector<Named> named(dwarf::DebugInfo &ko, uint64_t link, FrameAddress kind, const StackFrame &frame,
                         const std::vector<Named> &theirs) {
  std::vector<Named> ours;
  for (const StackFrame &s : expand_frame(ko, link, kind, frame)) ours.push_back({s.sym, s.file, s.line});
  for (size_t i = 0; i < ours.size() && i < theirs.size(); ++i)
    if (ours[i].file.ends_with(theirs[i].file)) ours[i].file = theirs[i].file;
  return ours;
}

class ModuleFrames : public ::testing::Test {
 protected:
  // Checks every byte of the functions `names` of `ko` (all when empty),
  // with the module's code sections placed by a loader at their own bases.
  void check(const std::string &ko_path, const std::vector<std::string> &names) {
    if (!std::filesystem::exists(ko_path)) GTEST_SKIP() << ko_path << " is not there";
    if (test::run_command("command -v addr2line objdump").out.empty())
      GTEST_SKIP() << "addr2line and objdump (binutils) are needed";
    auto ko = dwarf::DebugInfo::open(ko_path);
    ASSERT_TRUE(ko) << ko.error().message;
    std::vector<KoFunction> functions = functions_of(ko_path);
    ASSERT_FALSE(functions.empty()) << "objdump -t lists no function in " << ko_path;
    // kallsyms as the kernel would list the module: each code section
    // where the loader put it (init code apart from the rest).
    std::map<std::string, uint64_t> bases;
    std::string kallsyms_text;
    for (const KoFunction &f : functions) {
      auto [it, added] = bases.try_emplace(f.section, 0xffffffffc0000000 + 0x100000 * bases.size());
      char line[512];
      std::snprintf(line, sizeof line, "%llx t %s\t[fixture]\n", (unsigned long long)(it->second + f.value),
                    f.name.c_str());
      kallsyms_text += line;
    }
    Kallsyms kallsyms = Kallsyms::parse(kallsyms_text);
    size_t checked = 0, with_lines = 0, with_inlined = 0;
    for (const KoFunction &f : functions) {
      if (!names.empty() && std::find(names.begin(), names.end(), f.name) == names.end()) continue;
      std::vector<uint64_t> offsets;
      for (uint64_t o = 0; o < f.size; ++o) offsets.push_back(f.value + o);
      std::map<uint64_t, std::vector<Named>> expected = addr2line(ko_path, f.section, offsets);
      for (uint64_t o = 0; o < f.size; ++o) {
        StackFrame frame;
        frame.ip = bases[f.section] + f.value + o;
        const KallsymsEntry *sym = kallsyms.code_symbol_at(frame.ip);
        ASSERT_NE(sym, nullptr);
        frame.sym = sym->name;
        frame.off = frame.ip - sym->address;
        auto link = module_link_address((*ko)->elf(), kallsyms, *sym, frame.off);
        ASSERT_TRUE(link) << f.section << " " << f.name << "+" << o << " not placed in " << ko_path;
        std::vector<Named> theirs = expected[f.value + o];
        ASSERT_EQ(named(**ko, *link, FrameAddress::Exact, frame, theirs), theirs)
            << f.section << " " << f.name << "+0x" << std::hex << o;
        // The same byte as a return address: the call's line, one byte before.
        if (o > 0) {
          ASSERT_EQ(named(**ko, *link, FrameAddress::ReturnAddress, frame, expected[f.value + o - 1]),
                    expected[f.value + o - 1])
              << f.section << " " << f.name << "+0x" << std::hex << o << " as a return address";
        }
        ++checked;
        with_lines += !theirs.empty();
        with_inlined += theirs.size() > 1;
      }
    }
    std::printf("%s: %zu addresses checked against addr2line, %zu with a line, %zu with inlined calls\n",
                ko_path.c_str(), checked, with_lines, with_inlined);
    EXPECT_GT(with_lines, checked / 2) << "most code has a line";
  }
};

TEST_F(ModuleFrames, ModuleLikeObjectMatchesAddr2line) {
  check(KPP_STACK_MODULE_FIXTURE, {});
}

// Same-named statics: the second copy of 'show' (second.c's) is second.c's lines.
TEST_F(ModuleFrames, SecondSameNamedStaticIsItsOwnFile) {
  auto ko = dwarf::DebugInfo::open(KPP_STACK_MODULE_FIXTURE);
  ASSERT_TRUE(ko) << ko.error().message;
  Kallsyms kallsyms = Kallsyms::parse("ffffffffc0000000 t show\t[fixture]\nffffffffc0000030 t show\t[fixture]\n");
  auto link = module_link_address((*ko)->elf(), kallsyms, *kallsyms.code_symbol_at(0xffffffffc0000030), 0);
  ASSERT_TRUE(link);
  auto frames = (*ko)->frames_at(*link);
  ASSERT_FALSE(frames.empty());
  EXPECT_TRUE(frames.back().file.ends_with("second.c")) << frames.back().file;
}

// The same placement describes a .ko's address in source terms (what -m's
// listings use): first.c's entry, the first unit's code at 0 of .text.
TEST_F(ModuleFrames, SourceOfAKoAddressNamesItsFunction) {
  auto ko = dwarf::DebugInfo::open(KPP_STACK_MODULE_FIXTURE);
  ASSERT_TRUE(ko) << ko.error().message;
  auto entries = (*ko)->elf().function_symbol_addresses("first_entry");
  ASSERT_EQ(entries.size(), 1u);
  auto place = (*ko)->source_of(entries[0]);
  ASSERT_TRUE(place) << "no source place at first_entry";
  EXPECT_EQ(place->function, "first_entry");
  EXPECT_TRUE(place->file.ends_with("first.c")) << place->file;
  EXPECT_EQ(place->function_line, 16);  // module_fixture/first.c
}

// Another build's .ko (a function of another size) places nothing.
TEST_F(ModuleFrames, OffsetPastTheKoFunctionIsNotPlaced) {
  auto ko = dwarf::DebugInfo::open(KPP_STACK_MODULE_FIXTURE);
  ASSERT_TRUE(ko) << ko.error().message;
  Kallsyms kallsyms = Kallsyms::parse("ffffffffc0000000 t first_entry\t[fixture]\n");
  EXPECT_FALSE(module_link_address((*ko)->elf(), kallsyms, *kallsyms.code_symbol_at(0xffffffffc0000000), 0x400));
  Kallsyms two = Kallsyms::parse("ffffffffc0000000 t first_entry\t[fixture]\nffffffffc0000100 t first_entry\t[fixture]\n");
  EXPECT_FALSE(module_link_address((*ko)->elf(), two, *two.code_symbol_at(0xffffffffc0000000), 0));
}

// Debian's loop.ko of each cached guest kernel (tests/guest/fetch-kernel.sh:
// 6.1, and 6.12 under suite-bookworm-backports): lo_ioctl in .text,
// loop_init in .init.text and loop_exit in .exit.text, all three sections
// starting at 0 of the .ko.
TEST_F(ModuleFrames, DebianLoopKoMatchesAddr2line) {
  std::vector<std::string> found;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it("/var/tmp/kprobe-probe-guest", ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it.depth() > 4) it.disable_recursion_pending();
    if (it->path().filename() == "loop.ko" && it->path().parent_path().filename() == "modules" &&
        it->path().parent_path().parent_path().filename() == "debug")
      found.push_back(it->path());
  }
  if (found.empty()) GTEST_SKIP() << "no loop.ko in /var/tmp/kprobe-probe-guest (tests/guest/fetch-kernel.sh)";
  for (const std::string &ko : found) {
    SCOPED_TRACE(ko);
    check(ko, {"lo_ioctl", "loop_init", "loop_exit"});
  }
}

}  // namespace
}  // namespace kpp
