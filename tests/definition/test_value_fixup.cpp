// The decoder's finishing step travels in the field name: it must survive
// the round trip through a definition line, and do the arithmetic the
// kernel could not.
#include <gtest/gtest.h>

#include "src/definition/trace_definition.h"
#include "src/util/value_fixup.h"

namespace kpp {
namespace {

TEST(ValueFixup, SignExtendsASignedBitfield) {
  ValueFixup five_bits{0, 5, 0};
  EXPECT_EQ(static_cast<int64_t>(five_bits.apply(25)), -7) << "0b11001 is -7 in 5 bits";
  EXPECT_EQ(static_cast<int64_t>(five_bits.apply(16)), -16);
  EXPECT_EQ(static_cast<int64_t>(five_bits.apply(5)), 5);
}

TEST(ValueFixup, AddsThenWrapsToTheTypesWidth) {
  ValueFixup minus_one_int{-1, 32, 0};
  EXPECT_EQ(static_cast<int64_t>(minus_one_int.apply(0)), -1) << "an int that is a register minus 1";
  EXPECT_EQ(static_cast<int64_t>(minus_one_int.apply(0xffffffff00000005ull)), 4) << "upper bits are not the int's";
  ValueFixup minus_one_unsigned{-1, 0, 32};
  EXPECT_EQ(minus_one_unsigned.apply(0), 0xffffffffull);
  ValueFixup pie_address{0x2ed0, 0, 0};
  EXPECT_EQ(pie_address.apply(0x5555555551a0ull), 0x555555558070ull) << "%ip plus the link-time distance";
}

TEST(ValueFixup, NamesRoundTrip) {
  const ValueFixup cases[] = {{0, 5, 0},    {-1, 32, 0},           {0x2ed0, 0, 0}, {-0x10, 0, 16},
                              {0, 0, 8},    {0, 0, 0, 1, false},   {0, 0, 0, 2, true}};
  for (const ValueFixup &f : cases) {
    std::string name = field_name_with_fixup("delta", f);
    NamedFixup back = split_fixup(name);
    EXPECT_EQ(back.name, "delta") << name;
    EXPECT_EQ(back.fixup, f) << name;
  }
  EXPECT_EQ(field_name_with_fixup("delta", {0, 5, 0}), "delta__ks5");
  EXPECT_EQ(field_name_with_fixup("level", {-1, 32, 0}), "level__km1s32");
  EXPECT_EQ(field_name_with_fixup("a", {0x2ed0, 0, 0}), "a__kp2ed0");
  EXPECT_EQ(field_name_with_fixup("plain", {}), "plain");
  EXPECT_EQ(field_name_with_fixup("w", {0, 0, 0, 1, true}), "w__kn1") << "a term subtracted from the field before";
}

TEST(ValueFixup, OrdinaryNamesAreLeftAlone) {
  for (const char *name : {"count", "__k", "x__k", "x__ks", "x__ks0", "x__ks65", "x__kp", "x__kpXY", "x__ks5junk",
                           "x__kP10", "my__kind", "x__kt0", "x__kt", "x__kt1s5"}) {
    NamedFixup n = split_fixup(name);
    EXPECT_EQ(n.name, name);
    EXPECT_TRUE(n.fixup.empty()) << name;
  }
}

TEST(ValueFixup, DefinitionLinesCarryIt) {
  auto def = parse_definition("p:g/weigh /bin/prog:0x11f0 delta__ks5=+0(%di):b5@3/32 n=%si:s32");
  ASSERT_TRUE(def);
  ASSERT_EQ(def->args.size(), 2u);
  EXPECT_EQ(def->args[0].name, "delta");
  EXPECT_EQ(def->args[0].fixup, (ValueFixup{0, 5, 0}));
  EXPECT_TRUE(def->args[1].fixup.empty());
  EXPECT_EQ(format_definition(*def), "p:g/weigh /bin/prog:0x11f0 delta__ks5=+0(%di):b5@3/32 n=%si:s32");
}

}  // namespace
}  // namespace kpp
