// Abbreviation tables read raw (dwarf/raw/raw_abbrev.h): tags, children,
// attribute forms with DW_FORM_implicit_const values, and damaged tables
// refused with an error rather than read past the section's end.
#include "dwarf/raw/raw_abbrev.h"

#include <gtest/gtest.h>

#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf::raw {
namespace {

using test::BytesWriter;

constexpr uint16_t TAG_compile_unit = 0x11, TAG_variable = 0x34;

// Two tables: the second, at `second`, has a sparse code.
BytesWriter tables(size_t &second) {
  BytesWriter w;
  w.uleb(1).uleb(TAG_compile_unit).u8(1);
  w.uleb(AT_name).uleb(FORM_strp).uleb(AT_language).uleb(FORM_data1).uleb(0).uleb(0);
  w.uleb(2).uleb(TAG_subprogram).u8(0);
  w.uleb(AT_name).uleb(FORM_string).uleb(AT_byte_size).uleb(FORM_implicit_const).sleb(-5);
  w.uleb(AT_low_pc).uleb(FORM_addr).uleb(0).uleb(0);
  w.uleb(3).uleb(TAG_structure_type).u8(1).uleb(AT_sibling).uleb(FORM_ref4).uleb(0).uleb(0);
  w.uleb(0);
  second = w.size();
  w.uleb(300).uleb(TAG_variable).u8(0).uleb(0).uleb(0);
  w.uleb(0);
  return w;
}

// The tables above, read at `offset`.
struct ReadTables {
  size_t second = 0;
  std::string bytes = tables(second).bytes();
  std::string_view read;

  Result<std::vector<Abbrev>> at(uint64_t offset) {
    DwarfBytes b;
    b.abbrev = bytes;
    return read_abbrevs(b, offset, read);
  }
};

TEST(RawAbbrev, TableByCode) {
  ReadTables t;
  auto table = t.at(0);
  ASSERT_TRUE(table) << table.error().message;
  ASSERT_EQ(table->size(), 4u);
  EXPECT_EQ((*table)[0].tag, 0) << "code 0 is no abbreviation";
  const Abbrev &cu = (*table)[1];
  EXPECT_EQ(cu.tag, TAG_compile_unit);
  EXPECT_TRUE(cu.children);
  EXPECT_FALSE(cu.interesting);
  ASSERT_EQ(cu.attrs.size(), 2u);
  EXPECT_EQ(cu.attrs[1].at, AT_language);
  EXPECT_EQ(cu.attrs[1].form, FORM_data1);
  const Abbrev &sub = (*table)[2];
  EXPECT_TRUE(sub.interesting);
  EXPECT_FALSE(sub.children);
  ASSERT_EQ(sub.attrs.size(), 3u);
  EXPECT_EQ(sub.attrs[1].form, FORM_implicit_const);
  EXPECT_EQ(sub.attrs[1].implicit_const, -5);
  EXPECT_TRUE((*table)[3].skippable);
  EXPECT_EQ(t.read, std::string_view(t.bytes).substr(0, t.second)) << "up to and with the table's closing 0";
}

TEST(RawAbbrev, SparseCodes) {
  ReadTables t;
  auto table = t.at(t.second);
  ASSERT_TRUE(table) << table.error().message;
  ASSERT_EQ(table->size(), 301u);
  EXPECT_EQ((*table)[300].tag, TAG_variable);
  EXPECT_EQ((*table)[299].tag, 0);
  EXPECT_EQ(t.read.size(), t.bytes.size() - t.second);
}

TEST(RawAbbrev, OffsetOutsideTheSectionIsRefused) {
  DwarfBytes b;
  b.abbrev = std::string_view("\x01\x11\x00\x00\x00\x00", 7);
  std::string_view read;
  auto table = read_abbrevs(b, 7, read);
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().message, "abbreviation table offset 0x7 is out of range");
}

TEST(RawAbbrev, TruncatedTableIsRefused) {
  size_t second = 0;
  std::string bytes = tables(second).bytes();
  // Cut inside an attribute list, after an implicit constant, and before
  // the table's closing 0: each ends the section before the table does.
  for (size_t keep : {size_t{5}, size_t{17}, second - 1}) {
    DwarfBytes b;
    b.abbrev = std::string_view(bytes).substr(0, keep);
    std::string_view read;
    auto table = read_abbrevs(b, 0, read);
    ASSERT_FALSE(table) << keep << " bytes";
    EXPECT_EQ(table.error().message, "abbreviation table at 0x0 is truncated") << keep << " bytes";
  }
}

TEST(RawAbbrev, ImplausibleCodeIsRefused) {
  BytesWriter w;
  w.uleb(2'000'000).uleb(TAG_variable).u8(0).uleb(0).uleb(0).uleb(0);
  DwarfBytes b;
  b.abbrev = w.bytes();
  std::string_view read;
  auto table = read_abbrevs(b, 0, read);
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().message, "abbreviation code 2000000 is implausibly large");
}

// any_attribute_in_table() reads one table, to its end.
TEST(RawAbbrev, AnyAttributeInTableReadsThatTable) {
  size_t second = 0;
  std::string bytes = tables(second).bytes();
  uint64_t end = 0;
  // Forms of the first table's declarations; its end is where the second starts.
  EXPECT_TRUE(any_attribute_in_table(bytes, 0, [](uint16_t a, uint16_t f) { return a == AT_sibling && f == FORM_ref4; }));
  EXPECT_FALSE(any_attribute_in_table(bytes, 0, [](uint16_t, uint16_t) { return false; }, &end));
  EXPECT_EQ(end, second);
  // The implicit constant (-5) is a value, not an attribute.
  EXPECT_FALSE(any_attribute_in_table(bytes, 0, [](uint16_t a, uint16_t) { return a == 0x7b; }));
  // The second table's variable has no attributes; the first's are not in it.
  EXPECT_FALSE(any_attribute_in_table(bytes, second, [](uint16_t a, uint16_t f) { return a == AT_sibling && f == FORM_ref4; }));
  // A table cut inside a declaration, or an offset past the section, cannot be read: it counts as having one.
  EXPECT_TRUE(any_attribute_in_table(bytes.substr(0, 5), 0, [](uint16_t, uint16_t) { return false; }));
  EXPECT_TRUE(any_attribute_in_table(bytes, bytes.size(), [](uint16_t, uint16_t) { return false; }));
}

}  // namespace
}  // namespace kpp::dwarf::raw
