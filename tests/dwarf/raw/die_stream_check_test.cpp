// dwarf/die_stream_check: every unit's DIEs walked against its abbreviations
// before LLVM reads them. Real compilers' output passes (no file that LLVM
// reads well is refused); units whose values leave them, or that use codes
// or forms LLVM cannot skip, are refused with the DIE and attribute named.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <elf.h>
#include <unistd.h>

#include "dwarf/debug_info.h"
#include "dwarf/raw/die_stream_check.h"

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

Status check(const Crafted &c) { return check_die_stream({c.info, c.abbrev, false, ".debug_info", 0, {}}, "crafted"); }

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
  // DW_FORM_data8 with 4 bytes left: a DIE whose values all have fixed sizes is checked in one step, and named the same.
  Status fixed = check(crafted(0x07, 1, "1234"));
  ASSERT_FALSE(fixed);
  EXPECT_NE(fixed.error().message.find("the DIE at 0xb: its DW_AT_name (DW_FORM_data8) runs past the unit's end"),
            std::string::npos)
      << fixed.error().message;
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

// The units of crafted() one after the other, as LLVM reads their headers.
std::vector<UnitGate::Unit> units_of(const std::vector<const Crafted *> &crafted_units) {
  std::vector<UnitGate::Unit> units;
  uint64_t at = 0;
  for (const Crafted *c : crafted_units) {
    units.push_back({at, at + 11, at + c->info.size(), 0, 8, 4, 4});  // DWARF 4: an 11-byte header
    at += c->info.size();
  }
  return units;
}

// The gate over `units` one after the other, read with the first one's
// abbreviations; `info` keeps their bytes (the gate reads them in place).
Result<UnitGate> gate_over(std::string &info, const std::vector<const Crafted *> &units) {
  info.clear();
  for (const Crafted *c : units) info += c->info;
  return UnitGate::open({info, units.front()->abbrev, false, ".debug_info", 0, {}}, "crafted", units_of(units));
}

// What entering the only unit of `c` says (an error, or whether it stays inside itself).
Result<bool> enter_alone(const Crafted &c) {
  std::string info;
  auto gate = gate_over(info, {&c});
  if (!gate) return std::move(gate).error();
  return gate->enter(0);
}

// "the unit at 0x…" of the check's messages.
std::string unit_at(uint64_t offset) {
  char text[40];
  std::snprintf(text, sizeof text, "the unit at 0x%llx", static_cast<unsigned long long>(offset));
  return text;
}

TEST(UnitGate, ChecksTheUnitsAQueryReadsAlone) {
  // Both units' DIEs hold a DW_FORM_block1 (the same table); the second's
  // second DIE claims 0x7f bytes where 0 are left.
  Crafted good = crafted(0x0a, 1, std::string("\x03xyz", 4));
  Crafted bad = crafted(0x0a, 1, std::string("\x01x\x01\x7f", 4));
  std::string info;
  auto gate = gate_over(info, {&good, &bad});
  ASSERT_TRUE(gate) << gate.error().message;
  auto first = gate->enter(0);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(*first);
  auto again = gate->enter(0);  // a unit checked whole stays open to later queries
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(*again);
  auto second = gate->enter(good.info.size());
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find(unit_at(good.info.size())), std::string::npos) << second.error().message;
  EXPECT_FALSE(gate->enter(good.info.size())) << "a refused unit stays refused";
  auto nowhere = gate->enter(3);  // inside a unit: no unit starts there
  ASSERT_TRUE(nowhere);
  EXPECT_FALSE(*nowhere);
}

TEST(UnitGate, ADamagedUnitDieIsRefusedAtOpen) {
  // LLVM reads the unit DIE of every unit .debug_aranges leaves out: each is checked first.
  Crafted good = crafted(0x04, 1, std::string("\x01\0\0\0x", 5));
  Crafted bad = crafted(0x04, 1, std::string("\xf0\xff\xff\xff", 4));
  std::string info;
  auto gate = gate_over(info, {&good, &bad});
  ASSERT_FALSE(gate);
  EXPECT_NE(gate.error().message.find(unit_at(good.info.size())), std::string::npos) << gate.error().message;
  EXPECT_NE(gate.error().message.find("DW_FORM_block4"), std::string::npos) << gate.error().message;
}

TEST(UnitGate, AUnitOutsideTheStreamIsRefused) {
  Crafted c = crafted(0x08, 1, std::string("main\0", 5));
  std::vector<UnitGate::Unit> units = units_of({&c});
  units[0].end += 1;  // a header that says more than the section holds
  EXPECT_FALSE(UnitGate::open({c.info, c.abbrev, false, ".debug_info", 0, {}}, "crafted", units));
}

TEST(UnitGate, AUnitThatNamesOtherUnitsAsksForThemAll) {
  // DW_AT_type in DW_FORM_ref_addr: LLVM follows it into whichever unit holds it.
  auto entered = enter_alone(crafted(0x10, 1, std::string("\0\0\0\0", 4)));
  ASSERT_TRUE(entered) << entered.error().message;
  EXPECT_FALSE(*entered);
  // DW_FORM_indirect naming DW_FORM_ref_addr in the DIE itself: the same.
  auto through = enter_alone(crafted(0x16, 1, std::string("\x10\0\0\0\0", 5)));
  ASSERT_TRUE(through) << through.error().message;
  EXPECT_FALSE(*through);
  // A DW_FORM_ref4 stays inside: the unit alone is let in.
  auto inside = enter_alone(crafted(0x13, 1, std::string("\x0b\0\0\0", 4)));
  ASSERT_TRUE(inside) << inside.error().message;
  EXPECT_TRUE(*inside);
}

// Where the unit holding the DIE at `die` lies in `elf` (a 64-bit ELF
// file's bytes, 32-bit DWARF): its offset in .debug_info, its end, and where
// .debug_info starts in the file.
struct UnitPlace {
  uint64_t offset = 0, end = 0, section = 0;
};
std::optional<UnitPlace> unit_holding(const std::string &elf, uint64_t die) {
  Elf64_Ehdr header;
  std::memcpy(&header, elf.data(), sizeof header);
  auto section_at = [&](unsigned i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf.data() + header.e_shoff + i * sizeof(Elf64_Shdr), sizeof s);
    return s;
  };
  Elf64_Shdr names = section_at(header.e_shstrndx);
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr s = section_at(i);
    if (std::string(elf.data() + names.sh_offset + s.sh_name) != ".debug_info") continue;
    for (uint64_t at = 0; at < s.sh_size;) {
      uint32_t length;
      std::memcpy(&length, elf.data() + s.sh_offset + at, 4);
      uint64_t end = at + 4 + length;
      if (die >= at && die < end) return UnitPlace{at, end, s.sh_offset};
      at = end;
    }
  }
  return std::nullopt;
}

// A program whose second unit is damaged after its unit DIE: the queries
// that read the first unit alone answer (without the cache nothing records
// that every unit was checked); those that read the second are refused with
// it named, as is anything that reads every unit.
TEST(UnitGate, ADamagedUnitRefusesOnlyTheQueriesThatReadIt) {
  std::string fixture = std::string(KPP_INDEX_FIXTURE_DIR) + "/index_gcc_O2";
  OpenOptions options;
  options.use_cache = false;
  auto sound = DebugInfo::open(fixture, options);
  ASSERT_TRUE(sound) << sound.error().message;
  std::vector<Function> sum_b = (*sound)->find_functions("sum_b", "", InlineCopies::Include);
  ASSERT_EQ(sum_b.size(), 1u);
  std::ifstream in(fixture, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto b = unit_holding(bytes, sum_b[0].die_offset);
  ASSERT_TRUE(b) << "no unit holds sum_b's DIE in " << fixture;
  // The unit's last byte ends its list of children; an abbreviation code
  // there (the unit DIE's, which has many values) starts a DIE that runs past it.
  uint64_t last = b->section + b->end - 1;
  ASSERT_EQ(bytes[last], '\0');
  uint64_t dies = b->section + b->offset + 12;  // a DWARF 5 compile unit's header is 12 bytes
  bytes[last] = bytes[dies];
  std::string damaged = ::testing::TempDir() + "/gate_damaged_" + std::to_string(getpid());
  std::ofstream(damaged, std::ios::binary) << bytes;
  auto debug = DebugInfo::open(damaged, options);
  ASSERT_TRUE(debug) << debug.error().message;
  std::vector<Function> a;
  try {
    a = (*debug)->find_functions("sum_a", "", InlineCopies::Include);
  } catch (const DamagedDwarf &refused) {
    ADD_FAILURE() << "a query of the sound unit was refused: " << refused.error().message;
  }
  ASSERT_EQ(a.size(), 1u);
  auto place = (*debug)->source_of(a[0].entry);
  ASSERT_TRUE(place);
  EXPECT_NE(place->file.find("index_a.c"), std::string::npos) << place->file;
  try {
    (*debug)->find_functions("sum_b", "", InlineCopies::Include);
    ADD_FAILURE() << "sum_b's damaged unit was read";
  } catch (const DamagedDwarf &refused) {
    EXPECT_NE(refused.error().message.find(unit_at(b->offset)), std::string::npos) << refused.error().message;
  }
  // The same file opened again: a query that reads every unit meets the damage first.
  auto again = DebugInfo::open(damaged, options);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_THROW((*again)->find_functions("index_mix", "", InlineCopies::Include), DamagedDwarf);
  std::filesystem::remove(damaged);
}

}  // namespace
}  // namespace kpp::dwarf
