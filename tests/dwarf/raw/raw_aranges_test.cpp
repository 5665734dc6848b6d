// .debug_aranges read raw (dwarf/raw/raw_aranges.h): the unit that covers an
// address, 32- and 64-bit sets, and malformed sets refused.
#include "dwarf/raw/raw_aranges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf {
namespace {

using test::BytesWriter;

// One set of (begin, size) ranges of the unit at `unit`.
void set(BytesWriter &w, int offset_size, uint64_t unit, const std::vector<std::pair<uint64_t, uint64_t>> &ranges,
         int address_size = 8) {
  size_t start = w.size();
  size_t length = w.begin_length(offset_size);
  w.u16(2).fixed(unit, offset_size).u8(address_size).u8(0);
  while ((w.size() - start) % (2 * address_size)) w.u8(0);  // tuples aligned from the set's start
  for (auto [begin, size] : ranges) w.fixed(begin, address_size).fixed(size, address_size);
  w.fixed(0, address_size).fixed(0, address_size);
  w.end_length(length, offset_size);
}

TEST(RawAranges, UnitThatCoversAnAddress) {
  BytesWriter w;
  set(w, 4, 0x0, {{0x1000, 0x100}, {0x3000, 0x10}});
  set(w, 8, 0x2c0, {{0x2000, 0x80}});
  set(w, 4, 0x400, {{0x5000, 0x20}}, 4);
  std::string aranges = w.bytes();
  EXPECT_EQ(unit_at_address(aranges, 0x1000), 0x0u);
  EXPECT_EQ(unit_at_address(aranges, 0x300f), 0x0u);
  EXPECT_EQ(unit_at_address(aranges, 0x207f), 0x2c0u) << "a 64-bit set";
  EXPECT_EQ(unit_at_address(aranges, 0x5010), 0x400u) << "4-byte addresses";
  EXPECT_EQ(unit_at_address(aranges, 0x1100), std::nullopt) << "a range's end is outside it";
  EXPECT_EQ(unit_at_address(aranges, 0x4000), std::nullopt);
  EXPECT_EQ(unit_at_address("", 0x1000), std::nullopt);
}

TEST(RawAranges, MalformedSetIsRefused) {
  BytesWriter w;
  set(w, 4, 0x0, {{0x1000, 0x100}});
  std::string whole = w.bytes();
  EXPECT_EQ(unit_at_address(whole.substr(0, whole.size() - 1), 0x1000), std::nullopt) << "a length past the end";
  std::string odd = whole;
  odd[10] = 3;  // an address size of 3
  EXPECT_EQ(unit_at_address(odd, 0x1000), std::nullopt);
  std::string segmented = whole;
  segmented[11] = 8;  // a segment selector
  EXPECT_EQ(unit_at_address(segmented, 0x1000), std::nullopt);
}

}  // namespace
}  // namespace kpp::dwarf
