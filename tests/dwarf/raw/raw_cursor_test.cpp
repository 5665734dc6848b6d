// The raw reader's byte cursor (dwarf/raw/raw_cursor.h): fixed-size values,
// LEB128 numbers at their limits, and reads past the end refused.
#include "dwarf/raw/raw_cursor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kpp::dwarf::raw {
namespace {

struct Read {
  uint64_t value;
  bool ok;
  size_t used;
};

Read read_uleb(const std::vector<uint8_t> &bytes) {
  Cursor c{bytes.data(), bytes.data() + bytes.size()};
  uint64_t v = c.uleb();
  return {v, c.ok, static_cast<size_t>(c.p - bytes.data())};
}

Read read_sleb(const std::vector<uint8_t> &bytes) {
  Cursor c{bytes.data(), bytes.data() + bytes.size()};
  int64_t v = c.sleb();
  return {static_cast<uint64_t>(v), c.ok, static_cast<size_t>(c.p - bytes.data())};
}

std::vector<uint8_t> repeat(uint8_t byte, size_t n, std::vector<uint8_t> tail) {
  std::vector<uint8_t> bytes(n, byte);
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  return bytes;
}

TEST(RawCursor, FixedValuesAreLittleEndian) {
  std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09};
  Cursor c{bytes.data(), bytes.data() + bytes.size()};
  EXPECT_EQ(c.fixed(1), 0x01u);
  EXPECT_EQ(c.fixed(8), 0x0908070605040302u);
  EXPECT_TRUE(c.ok);
}

TEST(RawCursor, FixedValuePastTheEndReadsNothing) {
  std::vector<uint8_t> bytes = {0x01, 0x02, 0x03};
  Cursor c{bytes.data(), bytes.data() + bytes.size()};
  EXPECT_EQ(c.fixed(4), 0u);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.p, bytes.data());
  EXPECT_EQ(c.fixed(1), 0u) << "a failed cursor stays failed";
}

TEST(RawCursor, Uleb128Values) {
  EXPECT_EQ(read_uleb({0x00}).value, 0u);
  EXPECT_EQ(read_uleb({0x7f}).value, 127u);
  EXPECT_EQ(read_uleb({0x80, 0x01}).value, 128u);
  Read r = read_uleb({0xe5, 0x8e, 0x26, 0xaa});
  EXPECT_EQ(r.value, 624485u);
  EXPECT_EQ(r.used, 3u);
}

TEST(RawCursor, Uleb128OfTheLargestValueTakesTenBytes) {
  Read r = read_uleb(repeat(0xff, 9, {0x01}));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.value, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(r.used, 10u);
}

TEST(RawCursor, Uleb128PaddedWithZeroGroupsIsRead) {
  // Assemblers pad a ULEB128 to a fixed width with 0x80 bytes; padding past
  // 64 bits loses nothing.
  Read r = read_uleb(repeat(0x80, 12, {0x00}));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.value, 0u);
  EXPECT_EQ(r.used, 13u);
  r = read_uleb({0x81, 0x80, 0x80, 0x00});
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.value, 1u);
}

TEST(RawCursor, Uleb128BeyondSixtyFourBitsIsRefused) {
  EXPECT_FALSE(read_uleb(repeat(0xff, 9, {0x02})).ok) << "bit 64 set in the tenth byte";
  EXPECT_FALSE(read_uleb(repeat(0x80, 10, {0x01})).ok) << "bit 70 set in an eleventh byte";
}

TEST(RawCursor, UnterminatedUleb128IsRefused) {
  Read r = read_uleb({0x80, 0x80});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.value, 0u);
  EXPECT_FALSE(read_uleb({}).ok);
}

TEST(RawCursor, Sleb128Values) {
  EXPECT_EQ(static_cast<int64_t>(read_sleb({0x02}).value), 2);
  EXPECT_EQ(static_cast<int64_t>(read_sleb({0x7e}).value), -2);
  EXPECT_EQ(static_cast<int64_t>(read_sleb({0xff, 0x00}).value), 127);
  EXPECT_EQ(static_cast<int64_t>(read_sleb({0x81, 0x7f}).value), -127);
  EXPECT_EQ(static_cast<int64_t>(read_sleb({0x80, 0x7f}).value), -128);
  EXPECT_EQ(static_cast<int64_t>(read_sleb({0xff, 0xff, 0x7f}).value), -1) << "padded -1";
}

TEST(RawCursor, Sleb128OfTheExtremeValuesTakesTenBytes) {
  Read min = read_sleb(repeat(0x80, 9, {0x7f}));
  EXPECT_TRUE(min.ok);
  EXPECT_EQ(static_cast<int64_t>(min.value), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(min.used, 10u);
  Read max = read_sleb(repeat(0xff, 9, {0x00}));
  EXPECT_TRUE(max.ok);
  EXPECT_EQ(static_cast<int64_t>(max.value), std::numeric_limits<int64_t>::max());
  Read padded = read_sleb(repeat(0xff, 11, {0x7f}));
  EXPECT_TRUE(padded.ok);
  EXPECT_EQ(static_cast<int64_t>(padded.value), -1);
}

TEST(RawCursor, Sleb128BeyondSixtyFourBitsIsRefused) {
  EXPECT_FALSE(read_sleb(repeat(0x80, 9, {0x01})).ok) << "2^63 is no int64_t";
  EXPECT_FALSE(read_sleb(repeat(0xff, 9, {0x3f})).ok) << "bits past 63 that are not the sign";
  EXPECT_FALSE(read_sleb(repeat(0x80, 10, {0x01})).ok);
  EXPECT_FALSE(read_sleb({0xff}).ok) << "unterminated";
}

TEST(RawCursor, SkipsAndStrings) {
  std::string bytes("\x80\x80\x01" "abc\0" "z", 8);
  Cursor c{reinterpret_cast<const uint8_t *>(bytes.data()), reinterpret_cast<const uint8_t *>(bytes.data() + bytes.size())};
  c.skip_leb();
  EXPECT_EQ(c.cstring(), "abc");
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.cstring(), "") << "no NUL before the end";
  EXPECT_FALSE(c.ok);
}

TEST(RawCursor, SkipPastTheEndIsRefused) {
  std::vector<uint8_t> bytes = {0x01, 0x02};
  Cursor c{bytes.data(), bytes.data() + bytes.size()};
  c.skip(3);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.p, bytes.data());
  Cursor leb{bytes.data() + 2, bytes.data() + 2};
  leb.skip_leb();
  EXPECT_FALSE(leb.ok);
}

}  // namespace
}  // namespace kpp::dwarf::raw
