// dwarf/die_stream_check: every unit's DIEs walked against its abbreviations
// before LLVM reads them. Real compilers' output passes (no file that LLVM
// reads well is refused); units whose values leave them, or that use codes
// or forms LLVM cannot skip, are refused with the DIE and attribute named.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "dwarf/debug_info.h"
#include "dwarf/die_stream_check.h"

namespace kpp::dwarf {
namespace {

// A DWARF 4 unit (32-bit, 8-byte addresses) holding one DIE of abbreviation
// code `code` with the bytes `values`, and a table defining code 1 as a
// compile unit without children whose one attribute, DW_AT_name, has `form`.
struct Crafted {
  std::string info, abbrev;
};
Crafted crafted(uint8_t form, uint8_t code, const std::string &values) {
  Crafted c;
  c.abbrev = std::string("\x01\x11\x00\x03", 4) + static_cast<char>(form) + std::string("\x00\x00\x00", 3);
  std::string body = std::string("\x04\x00", 2) + std::string(4, '\0') + "\x08" + static_cast<char>(code) + values;
  uint32_t length = static_cast<uint32_t>(body.size());
  c.info = std::string(reinterpret_cast<const char *>(&length), 4) + body;
  return c;
}

Status check(const Crafted &c) { return check_die_stream({c.info, c.abbrev, false, ".debug_info"}, "crafted"); }

TEST(DieStreamCheck, AWellFormedUnitPasses) {
  EXPECT_TRUE(check(crafted(0x08, 1, std::string("main\0", 5))));       // DW_FORM_string
  EXPECT_TRUE(check(crafted(0x0a, 1, std::string("\x03xyz", 4))));      // DW_FORM_block1 of 3 bytes
}

TEST(DieStreamCheck, AValuePastTheUnitIsRefusedWithItsAttribute) {
  // DW_FORM_block4 claiming 0xfffffff0 bytes: LLVM 19 adds that to its offset and reads on (SIGSEGV).
  Status s = check(crafted(0x04, 1, std::string("\xf0\xff\xff\xff", 4)));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("the DIE at 0xb: its DW_AT_name (DW_FORM_block4) runs past the unit's end"),
            std::string::npos)
      << s.error().message;
  // A string without its NUL, a fixed value cut by the unit's end.
  EXPECT_FALSE(check(crafted(0x08, 1, "main")));
  EXPECT_FALSE(check(crafted(0x07, 1, "1234")));  // DW_FORM_data8 with 4 bytes left
}

TEST(DieStreamCheck, UndefinedCodesAndUnknownFormsAreRefused) {
  Status undefined = check(crafted(0x08, 2, std::string("main\0", 5)));
  ASSERT_FALSE(undefined);
  EXPECT_NE(undefined.error().message.find("uses abbreviation 2, which its table does not define"), std::string::npos)
      << undefined.error().message;
  Status unknown = check(crafted(0x7f, 1, "x"));
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("which LLVM cannot skip"), std::string::npos) << unknown.error().message;
}

TEST(DieStreamCheck, ALengthPastTheSectionIsRefused) {
  Crafted c = crafted(0x08, 1, std::string("main\0", 5));
  c.info[0] = '\x7f';
  EXPECT_FALSE(check(c));
}

// Every fixture program the build made (gcc and clang, DWARF 4 and 5,
// -O0/-O2, split into .dwo files and .dwp packages) passes the check as
// LLVM holds its DWARF: main is found, in the split ones through the .dwo
// or .dwp (which are checked too, and would be skipped as missing if refused).
TEST(DieStreamCheck, EveryFixtureOfRealCompilersPasses) {
  int checked = 0;
  for (const auto &entry : std::filesystem::directory_iterator(KPP_INDEX_FIXTURE_DIR)) {
    std::string path = entry.path().string();
    if (!entry.is_regular_file() || entry.path().has_extension()) continue;  // .dwo, .dwp: read through their program
    OpenOptions options;
    options.use_cache = false;
    auto debug = DebugInfo::open(path, options);
    ASSERT_TRUE(debug) << debug.error().message;
    try {
      EXPECT_FALSE((*debug)->find_functions("main", "", InlineCopies::Include).empty()) << path;
    } catch (const DamagedDwarf &refused) {
      ADD_FAILURE() << refused.error().message;
    }
    ++checked;
  }
  EXPECT_GE(checked, 8) << "fixtures missing from " << KPP_INDEX_FIXTURE_DIR;
}

}  // namespace
}  // namespace kpp::dwarf
