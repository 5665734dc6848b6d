// enumeration_text: a value of an enum as gdb 13 (Debian's 13.1) prints it.
// Each expectation is what that gdb printed for the same type and value
// (tests/lang/values/floats.c and containers.cpp's enums, and the types
// below, set with `set var` and printed with `p`).
#include "util/enumeration.h"

#include <gtest/gtest.h>

namespace kpp {
namespace {

Enumeration type(std::vector<Enumeration::Enumerator> list, uint64_t size, bool is_signed, bool is_flag) {
  return Enumeration{std::move(list), size, is_signed, is_flag};
}

TEST(Enumeration, AnEnumeratorByItsNameElseTheNumber) {
  // enum color { RED, GREEN = 5, BLUE }: 5 has two bits, no flag enum.
  Enumeration color = type({{0, "RED"}, {5, "GREEN"}, {6, "BLUE"}}, 4, false, false);
  EXPECT_EQ(enumeration_text(color, 5), "GREEN");
  EXPECT_EQ(enumeration_text(color, 7), "7");
  EXPECT_EQ(enumeration_text(color, 0xffffffffffffffffull), "4294967295") << "unsigned: no negative enumerator";
}

TEST(Enumeration, ASignedEnumShowsANegativeNumber) {
  // enum level { L_LOW = -1, L_HIGH = 2 }: masked to 4 bytes.
  Enumeration level = type({{0xffffffff, "L_LOW"}, {2, "L_HIGH"}}, 4, true, false);
  EXPECT_EQ(enumeration_text(level, 0xffffffffffffffffull), "L_LOW");
  EXPECT_EQ(enumeration_text(level, static_cast<uint64_t>(-5)), "-5");
  EXPECT_EQ(enumeration_text(level, 3), "3");
}

TEST(Enumeration, AFlagEnumIsDecomposed) {
  // enum flags { F_A = 1, F_B = 2, F_C = 8 }
  Enumeration flags = type({{1, "F_A"}, {2, "F_B"}, {8, "F_C"}}, 4, false, true);
  EXPECT_EQ(enumeration_text(flags, 2), "F_B");
  EXPECT_EQ(enumeration_text(flags, 3), "(F_A | F_B)");
  EXPECT_EQ(enumeration_text(flags, 0), "0");
  EXPECT_EQ(enumeration_text(flags, 16), "(unknown: 0x10)");
  EXPECT_EQ(enumeration_text(flags, 19), "(F_A | F_B | unknown: 0x10)");
  // enum fz { Z_NONE = 0, Z_X = 1, Z_Y = 4 }: 0 is an enumerator.
  Enumeration fz = type({{0, "Z_NONE"}, {1, "Z_X"}, {4, "Z_Y"}}, 4, false, true);
  EXPECT_EQ(enumeration_text(fz, 0), "Z_NONE");
  EXPECT_EQ(enumeration_text(fz, 5), "(Z_X | Z_Y)");
  EXPECT_EQ(enumeration_text(fz, 2), "(unknown: 0x2)");
  // enum d1 { D_A = 1, D_A2 = 1, D_B = 2 }: the first of two names for a bit.
  Enumeration d1 = type({{1, "D_A"}, {1, "D_A2"}, {2, "D_B"}}, 4, false, true);
  EXPECT_EQ(enumeration_text(d1, 3), "(D_A | D_B)");
  // enum class ec : unsigned char { X = 1, Y = 2 }: one byte.
  Enumeration ec = type({{1, "ec::X"}, {2, "ec::Y"}}, 1, false, true);
  EXPECT_EQ(enumeration_text(ec, 3), "(ec::X | ec::Y)");
  EXPECT_EQ(enumeration_text(ec, 200), "(unknown: 0xc8)");
  EXPECT_EQ(enumeration_text(ec, 0x102), "ec::Y") << "only the type's byte is looked at";
}

}  // namespace
}  // namespace kpp
