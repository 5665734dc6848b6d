// Unit headers of .debug_info read raw (dwarf/raw/raw_unit_header.h): DWARF 4
// and 5, 32- and 64-bit, the DWARF 5 unit types, and malformed headers
// refused with an error.
#include "dwarf/raw/raw_unit_header.h"

#include <gtest/gtest.h>

#include "tests/dwarf/dwarf_bytes_writer.h"

namespace kpp::dwarf::raw {
namespace {

using test::BytesWriter;

// A unit of `version` (4: before DWARF 5's unit type) with one DIE byte.
BytesWriter unit(int version, int offset_size, uint8_t unit_type = 1) {
  BytesWriter w;
  size_t length = w.begin_length(offset_size);
  w.u16(version);
  if (version >= 5) {
    w.u8(unit_type).u8(8).fixed(0x40, offset_size);
    if (unit_type == 4 || unit_type == 5) w.u64(0x1122334455667788);  // dwo_id
    if (unit_type == 2 || unit_type == 6) w.u64(0xabcdef).fixed(0x30, offset_size);  // signature, type offset
  } else {
    w.fixed(0x40, offset_size).u8(8);
  }
  w.u8(0);
  w.end_length(length, offset_size);
  return w;
}

Result<UnitHeader> header_of(const std::string &info, uint64_t at = 0) {
  static DwarfBytes bytes;
  bytes.info = info;
  return read_unit_header(bytes, at);
}

TEST(RawUnitHeader, Dwarf4And5Of32And64Bits) {
  struct Format {
    int version, offset_size;
    uint64_t dies;  // where the header ends
  };
  for (Format f : {Format{4, 4, 11}, Format{4, 8, 23}, Format{5, 4, 12}, Format{5, 8, 24}}) {
    SCOPED_TRACE(testing::Message() << "DWARF " << f.version << ", " << 8 * f.offset_size << "-bit");
    std::string info = unit(f.version, f.offset_size).bytes();
    auto u = header_of(info);
    ASSERT_TRUE(u) << u.error().message;
    EXPECT_EQ(u->version, f.version);
    EXPECT_EQ(u->offset_size, f.offset_size);
    EXPECT_EQ(u->address_size, 8);
    EXPECT_EQ(u->abbrev_offset, 0x40u);
    EXPECT_EQ(u->dies, f.dies);
    EXPECT_EQ(u->end, info.size());
    EXPECT_TRUE(u->has_code_dies);
    EXPECT_FALSE(u->skeleton);
  }
}

TEST(RawUnitHeader, Dwarf5SkeletonAndTypeUnits) {
  std::string skeleton = unit(5, 4, 4).bytes();
  auto s = header_of(skeleton);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->skeleton);
  EXPECT_EQ(s->dies, 20u) << "after the dwo_id";
  std::string type = unit(5, 8, 2).bytes();
  auto t = header_of(type);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_FALSE(t->has_code_dies);
  EXPECT_EQ(t->dies, 40u) << "after the signature and the type offset";
}

TEST(RawUnitHeader, SecondUnitAtTheFirstsEnd) {
  std::string info = unit(4, 4).bytes() + unit(5, 8).bytes();
  auto first = header_of(info);
  ASSERT_TRUE(first);
  auto second = header_of(info, first->end);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->offset, first->end);
  EXPECT_EQ(second->version, 5);
  EXPECT_EQ(second->end, info.size());
  EXPECT_EQ(second->handle(second->offset + 3), second->offset + 3) << "not a split unit";
}

TEST(RawUnitHeader, OffsetOutsideTheSectionIsRefused) {
  std::string info = unit(4, 4).bytes();
  auto u = header_of(info, info.size());
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().message, "malformed unit header at 0xc of .debug_info");
}

TEST(RawUnitHeader, LengthPastTheSectionIsRefused) {
  std::string info = unit(4, 4).bytes();
  info.pop_back();  // the unit's length now covers a byte that is not there
  auto u = header_of(info);
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().message, "malformed unit header at 0x0 of .debug_info");
}

TEST(RawUnitHeader, TruncatedHeaderIsRefused) {
  for (size_t keep : {2u, 5u, 9u}) {
    std::string info = unit(4, 4).bytes().substr(0, keep);
    EXPECT_FALSE(header_of(info)) << keep << " bytes";
  }
  std::string wide = unit(5, 8).bytes().substr(0, 10);
  EXPECT_FALSE(header_of(wide));
}

// Addresses are read as one value of at most 8 bytes.
TEST(RawUnitHeader, AnAddressSizeOfNoneOrOverEightBytesIsRefused) {
  for (int version : {4, 5}) {
    std::string info = unit(version, 4).bytes();
    size_t at = version >= 5 ? 7 : 10;  // the address size's byte
    ASSERT_EQ(info[at], 8);
    for (uint8_t size : {uint8_t{0}, uint8_t{9}, uint8_t{200}}) {
      info[at] = static_cast<char>(size);
      EXPECT_FALSE(header_of(info)) << "DWARF " << version << ", address size " << int(size);
    }
    info[at] = 4;
    EXPECT_TRUE(header_of(info)) << "DWARF " << version << ", address size 4";
  }
}

TEST(RawUnitHeader, UnknownVersionIsRefused) {
  for (int version : {1, 6}) {
    std::string info = unit(version, 4).bytes();
    EXPECT_FALSE(header_of(info)) << "version " << version;
  }
}

}  // namespace
}  // namespace kpp::dwarf::raw
