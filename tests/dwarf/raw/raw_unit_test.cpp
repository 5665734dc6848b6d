// One unit read raw (dwarf/raw/raw_unit.h): the attributes of a DIE a type
// chain needs, the subprogram at an address, the unit's line table, and
// units that cannot be read refused.
#include "dwarf/raw/raw_unit.h"

#include <gtest/gtest.h>

#include <string>

#include "dwarf/raw/raw_constants.h"
#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf {
namespace {

using namespace raw;
using test::BytesWriter;

constexpr uint16_t TAG_compile_unit = 0x11, TAG_base_type = 0x24, TAG_member = 0x0d, TAG_pointer_type = 0x0f;

std::string abbrevs() {
  BytesWriter w;
  w.uleb(1).uleb(TAG_compile_unit).u8(1).uleb(AT_stmt_list).uleb(FORM_sec_offset).uleb(AT_language).uleb(FORM_data1);
  w.uleb(0).uleb(0);
  w.uleb(2).uleb(TAG_base_type).u8(0).uleb(AT_name).uleb(FORM_string).uleb(AT_byte_size).uleb(FORM_data1);
  w.uleb(AT_encoding).uleb(FORM_indirect).uleb(0).uleb(0);
  w.uleb(3).uleb(TAG_subprogram).u8(0).uleb(AT_name).uleb(FORM_string).uleb(AT_low_pc).uleb(FORM_addr);
  w.uleb(AT_type).uleb(FORM_ref4).uleb(0).uleb(0);
  w.uleb(4).uleb(TAG_structure_type).u8(1).uleb(AT_sibling).uleb(FORM_ref4);
  w.uleb(AT_byte_size).uleb(FORM_implicit_const).sleb(16).uleb(0).uleb(0);
  w.uleb(5).uleb(TAG_member).u8(0).uleb(AT_type).uleb(FORM_ref_udata).uleb(0).uleb(0);
  w.uleb(6).uleb(TAG_pointer_type).u8(0).uleb(AT_type).uleb(FORM_ref_addr).uleb(0).uleb(0);
  w.uleb(0);
  return w.bytes();
}

// A DWARF 4 unit after a unit of one DIE, and where its DIEs are.
struct TestUnit {
  std::string info, abbrev = abbrevs();
  DwarfBytes bytes;
  uint64_t unit = 0, base_type = 0, structure = 0, member = 0, subprogram = 0, pointer = 0;

  TestUnit() {
    BytesWriter w;
    size_t first = w.begin_length(4);
    w.u16(4).u32(0).u8(8).uleb(0);
    w.end_length(first, 4);
    unit = w.size();
    size_t length = w.begin_length(4);
    w.u16(4).u32(0).u8(8);
    w.uleb(1).u32(0x40).u8(0x0c);  // the unit DIE: a line table, DW_LANG_C99
    base_type = w.size();
    w.uleb(2).str("int").u8(4).uleb(FORM_data1).u8(5);
    structure = w.size();
    w.uleb(4);
    size_t sibling = w.size();
    w.u32(0);
    member = w.size();
    w.uleb(5).uleb(base_type - unit).uleb(0);
    w.put(sibling, w.size() - unit, 4);
    subprogram = w.size();
    w.uleb(3).str("f").u64(0x401000).u32(base_type - unit);
    pointer = w.size();
    w.uleb(6).u32(0x2);
    w.uleb(0);
    w.end_length(length, 4);
    info = w.bytes();
    bytes.info = info;
    bytes.abbrev = abbrev;
  }
};

TEST(RawUnit, DieAttributes) {
  TestUnit t;
  auto unit = RawUnit::open(t.bytes, t.unit);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->address_size(), 8);
  auto base = unit->die_at(t.base_type);
  ASSERT_TRUE(base);
  EXPECT_EQ(base->tag, TAG_base_type);
  EXPECT_EQ(base->byte_size, 4u);
  EXPECT_EQ(base->encoding, 5u) << "through DW_FORM_indirect";
  auto structure = unit->die_at(t.structure);
  ASSERT_TRUE(structure);
  EXPECT_EQ(structure->byte_size, 16u) << "a DW_FORM_implicit_const";
  auto member = unit->die_at(t.member);
  ASSERT_TRUE(member);
  EXPECT_EQ(member->type, t.base_type);
  auto sub = unit->die_at(t.subprogram);
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->tag, TAG_subprogram);
  EXPECT_EQ(sub->low_pc, 0x401000u);
  EXPECT_EQ(sub->type, t.base_type);
}

TEST(RawUnit, DiesOutsideTheUnitOrReferringElsewhereAreNotRead) {
  TestUnit t;
  auto unit = RawUnit::open(t.bytes, t.unit);
  ASSERT_TRUE(unit);
  EXPECT_FALSE(unit->die_at(t.pointer)) << "its type is another unit's DIE";
  EXPECT_FALSE(unit->die_at(0)) << "the unit before";
  EXPECT_FALSE(unit->die_at(t.info.size()));
}

TEST(RawUnit, SubprogramAtAnAddress) {
  TestUnit t;
  auto unit = RawUnit::open(t.bytes, t.unit);
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->subprogram_at(0x401000), t.subprogram);
  EXPECT_EQ(unit->subprogram_at(0x402000), std::nullopt);
  RawUnit copy = *unit;  // copies share the parsed abbreviations
  EXPECT_EQ(copy.subprogram_at(0x401000), t.subprogram);
}

TEST(RawUnit, LineTablesOfUnits) {
  TestUnit t;
  auto tables = unit_line_tables(t.bytes, {0, t.unit});
  ASSERT_EQ(tables.size(), 1u) << "the first unit has no DW_AT_stmt_list";
  EXPECT_EQ(tables[0], std::make_pair(uint64_t{0x40}, t.unit));
  EXPECT_TRUE(unit_line_tables(t.bytes, {t.info.size()}).empty()) << "no unit there";
}

TEST(RawUnit, UnreadableUnitsAreRefused) {
  TestUnit t;
  EXPECT_FALSE(RawUnit::open(t.bytes, t.unit + 1)) << "not a unit's start";
  DwarfBytes cut = t.bytes;
  cut.info = std::string_view(t.info).substr(0, t.info.size() - 1);
  EXPECT_FALSE(RawUnit::open(cut, t.unit)) << "a unit past the section's end";
  DwarfBytes no_abbrev = t.bytes;
  no_abbrev.abbrev = {};
  EXPECT_FALSE(RawUnit::open(no_abbrev, t.unit)) << "no abbreviation table";
  BytesWriter type_unit;
  size_t length = type_unit.begin_length(4);
  type_unit.u16(5).u8(2).u8(8).u32(0).u64(1).u32(0).uleb(0);
  type_unit.end_length(length, 4);
  DwarfBytes types = t.bytes;
  types.info = type_unit.bytes();
  EXPECT_FALSE(RawUnit::open(types, 0)) << "a type unit";
}

}  // namespace
}  // namespace kpp::dwarf
