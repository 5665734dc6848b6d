// The byte search behind --no-cache lookups (dwarf/index/name_search.h): every
// occurrence is found, at every alignment and at the very end, and no other.
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dwarf/index/name_search.h"
#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf {
namespace {

std::vector<uint64_t> naive(std::string_view haystack, std::string_view needle) {
  std::vector<uint64_t> found;
  for (size_t at = 0; at + needle.size() <= haystack.size(); ++at)
    if (haystack.substr(at, needle.size()) == needle) found.push_back(at);
  return found;
}

TEST(FindAll, FindsWhatAPlainSearchFinds) {
  std::mt19937 random(7);
  // Few distinct bytes, so that partial matches (first and last byte equal) are common.
  auto noise = [&](size_t n) {
    std::string s(n, 'a');
    for (char &c : s) c = static_cast<char>('a' + random() % 3);
    return s;
  };
  for (size_t needle_size : {1, 2, 3, 4, 5, 8, 9, 17, 33}) {
    for (size_t haystack_size : {0, 1, 15, 16, 17, 31, 32, 33, 100, 1000}) {
      std::string needle = noise(needle_size);
      std::string haystack = noise(haystack_size);
      // Planted at the start, across a 16-byte boundary and at the end.
      for (size_t at : {size_t{0}, size_t{14}, haystack_size >= needle_size ? haystack_size - needle_size : 0})
        if (at + needle_size <= haystack_size) haystack.replace(at, needle_size, needle);
      SCOPED_TRACE("needle " + std::to_string(needle_size) + ", haystack " + std::to_string(haystack_size));
      EXPECT_EQ(find_all(haystack, needle), naive(haystack, needle));
    }
  }
}

TEST(FindAll, OffsetsWithZeroBytes) {
  std::string haystack(4096, '\0');
  const char offset[4] = {0x34, 0x12, 0x00, 0x00};  // 0x1234 as DW_FORM_strp stores it
  haystack.replace(4090, 4, std::string(offset, 4));
  haystack.replace(100, 4, std::string(offset, 4));
  EXPECT_EQ(find_all(haystack, std::string(offset, 4)), (std::vector<uint64_t>{100, 4090}));
  EXPECT_TRUE(find_all(haystack, "\x34\x12\x01").empty());
  EXPECT_TRUE(find_all("abc", "abcd").empty());
  EXPECT_TRUE(find_all("abc", "").empty());
}

// One DWARF 4 unit of 32-bit DWARF whose single DIE (a subprogram) names
// "wanted" through .debug_str, and an abbreviation table holding `extra`
// declarations after the subprogram's (code 1).
struct OneUnit {
  std::string info, abbrev, str = std::string("\0wanted\0", 8);
  DwarfBytes bytes() const { return {info, abbrev, str, {}, {}, {}, {}}; }
  std::vector<UnitSpan> spans() const { return {{0, info.size(), 4, 4, false, 0}}; }  // its table at 0
};
OneUnit one_unit(const std::function<void(test::BytesWriter &)> &extra) {
  test::BytesWriter abbrev;
  abbrev.uleb(1).uleb(0x2e).u8(0).uleb(0x03).uleb(0x0e).uleb(0).uleb(0);  // subprogram: DW_AT_name strp
  extra(abbrev);
  abbrev.uleb(0);
  test::BytesWriter info;
  size_t length = info.begin_length(4);
  info.u16(4).u32(0).u8(8);  // version, abbreviations at 0, address size
  info.uleb(1).u32(1);       // the subprogram, named by the string at 1
  info.end_length(length, 4);
  OneUnit unit;
  unit.info = info.bytes();
  unit.abbrev = abbrev.bytes();
  return unit;
}

TEST(UnitsThatMayName, AnswersWhereNoAbbreviationReferencesAnotherUnit) {
  // Code 0x31 declares a DW_TAG_reference_type (0x10): the bytes 31 10, as
  // DW_AT_abstract_origin with DW_FORM_ref_addr would be, in a file that has
  // no such attribute (libstdc++'s debug build has them).
  OneUnit unit = one_unit([](test::BytesWriter &w) { w.uleb(0x31).uleb(0x10).u8(0).uleb(0x49).uleb(0x13).uleb(0).uleb(0); });
  ASSERT_NE(unit.abbrev.find(std::string("\x31\x10", 2)), std::string::npos);
  auto units = units_that_may_name(unit.bytes(), unit.spans(), "wanted", false, 1);
  ASSERT_TRUE(units.has_value()) << "the search gave up on a file it can answer for";
  EXPECT_EQ(*units, std::vector<uint64_t>{0});
  EXPECT_EQ(units_that_may_name(unit.bytes(), unit.spans(), "other", false, 1), std::vector<uint64_t>{});
}

TEST(UnitsThatMayName, AnAbbreviationTableNoUnitUsesDoesNotCount) {
  // The unit uses the table at 0; a second table, which no unit uses, declares
  // an inlined copy whose origin is a DW_FORM_ref_addr.
  OneUnit unit = one_unit([](test::BytesWriter &) {});
  test::BytesWriter unused;
  unused.uleb(1).uleb(0x1d).u8(0).uleb(0x31).uleb(0x10).uleb(0).uleb(0).uleb(0);
  unit.abbrev += unused.bytes();
  auto units = units_that_may_name(unit.bytes(), unit.spans(), "wanted", false, 1);
  ASSERT_TRUE(units.has_value()) << "a table no unit reads sent the search to every unit";
  EXPECT_EQ(*units, std::vector<uint64_t>{0});
}

TEST(UnitsThatMayName, GivesUpWhereAnOriginCanBeInAnotherUnit) {
  // An inlined copy (0x1d) whose DW_AT_abstract_origin (0x31) is a
  // DW_FORM_ref_addr (0x10) or DW_FORM_indirect (0x16), a specification
  // (0x47) by ref_addr, or a DWARF 4 skeleton's DW_AT_GNU_dwo_name (0x2130).
  for (auto [at, form] : {std::pair{0x31, 0x10}, std::pair{0x31, 0x16}, std::pair{0x47, 0x10}, std::pair{0x2130, 0x0e}}) {
    OneUnit unit = one_unit([&](test::BytesWriter &w) { w.uleb(2).uleb(0x1d).u8(0).uleb(at).uleb(form).uleb(0).uleb(0); });
    SCOPED_TRACE("attribute " + std::to_string(at) + " form " + std::to_string(form));
    EXPECT_FALSE(units_that_may_name(unit.bytes(), unit.spans(), "wanted", false, 1).has_value());
  }
}

}  // namespace
}  // namespace kpp::dwarf
