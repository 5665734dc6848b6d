// The decoder's program travels in the field names: it must survive the
// round trip through a definition line, and do the arithmetic the kernel
// could not, step by step as DWARF (and gdb) define it.
#include <gtest/gtest.h>

#include "src/definition/trace_definition.h"
#include "util/value_fixup.h"

namespace kpp {
namespace {

int64_t run(const std::string &code, std::vector<uint64_t> terms) {
  NamedFixup f = split_fixup("v__k" + code);
  EXPECT_EQ(f.name, "v") << code;
  std::vector<ProgramLeaf> leaves;
  for (uint64_t t : terms) leaves.push_back({t, {}});
  ProgramResult r = run_value_program(f.fixup.steps, leaves);
  EXPECT_TRUE(r.value) << code << ": " << (r.why ? r.why : "");
  return r.value ? static_cast<int64_t>(*r.value) : 0;
}

TEST(ValueFixup, SignExtendsASignedBitfield) {
  ValueFixup five_bits = ValueFixup::add_and_keep(0, 5, 0);
  EXPECT_EQ(static_cast<int64_t>(*five_bits.apply(25)), -7) << "0b11001 is -7 in 5 bits";
  EXPECT_EQ(static_cast<int64_t>(*five_bits.apply(16)), -16);
  EXPECT_EQ(static_cast<int64_t>(*five_bits.apply(5)), 5);
}

TEST(ValueFixup, AddsThenWrapsToTheTypesWidth) {
  ValueFixup minus_one_int = ValueFixup::add_and_keep(-1, 32, 0);
  EXPECT_EQ(static_cast<int64_t>(*minus_one_int.apply(0)), -1) << "an int that is a register minus 1";
  EXPECT_EQ(static_cast<int64_t>(*minus_one_int.apply(0xffffffff00000005ull)), 4) << "upper bits are not the int's";
  ValueFixup minus_one_unsigned = ValueFixup::add_and_keep(-1, 0, 32);
  EXPECT_EQ(*minus_one_unsigned.apply(0), 0xffffffffull);
  ValueFixup pie_address = ValueFixup::add_and_keep(0x2ed0, 0, 0);
  EXPECT_EQ(*pie_address.apply(0x5555555551a0ull), 0x555555558070ull) << "%ip plus the link-time distance";
}

// Every step, as the DWARF operation it stands for defines it; the generic
// type is signed for div and the comparisons, unsigned for mod and shr (gdb).
TEST(ValueFixup, EveryStep) {
  struct Case {
    const char *code;
    std::vector<uint64_t> terms;
    int64_t want;
  };
  const Case cases[] = {
      {"k5A", {7}, 12},         {"k5S", {7}, 2},          {"k5M", {7}, 35},        {"k2D", {uint64_t(-7)}, -3},
      {"k2V", {7}, 1},          {"kcB", {10}, 8},         {"k5O", {10}, 15},       {"kfX", {10}, 5},
      {"k4L", {3}, 48},         {"k4R", {uint64_t(-16)}, 0x0fffffffffffffff},       {"k4H", {uint64_t(-16)}, -1},
      {"N", {5}, -5},           {"T", {0}, -1},           {"Z", {uint64_t(-9)}, 9}, {"k5E", {5}, 1},
      {"k5F", {5}, 0},          {"k5C", {uint64_t(-1)}, 1}, {"k5G", {uint64_t(-1)}, 0}, {"k5I", {5}, 1},
      {"k6J", {5}, 0},          {"KA", {21}, 42},         {"k1P", {9}, 9},         {"k1W", {9}, 9},
      {"k1WS", {9}, -8},        {"k1QS", {9}, -8},         {"k1k2UPP", {9}, 2},     {"k1k2v2", {9}, 9},
      {"p10", {1}, 17},         {"m1s32", {0}, -1},       {"u8", {0x1ff}, 0xff},   {"r1M", {6, 7}, 42},
      {"r0A", {6}, 12},         {"w2k1i1k2", {0}, 1},     {"w2k1i1k2", {1}, 2},    {"i1k9k3", {4}, 3},
  };
  for (const Case &c : cases) EXPECT_EQ(run(c.code, c.terms), c.want) << c.code;
}

TEST(ValueFixup, DivisionByZeroAndWindowsSayWhy) {
  NamedFixup div = split_fixup("v__kk0D");
  ProgramLeaf one{1, {}};
  ProgramResult r = run_value_program(div.fixup.steps, std::span<const ProgramLeaf>(&one, 1));
  EXPECT_FALSE(r.value);
  EXPECT_STREQ(r.why, "division by zero");
  // A stack slot at a computed address: base 0x1000, window 16 bytes.
  const uint8_t frame[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0x2a, 0, 0, 0, 0, 0, 0, 0};
  std::vector<ProgramLeaf> leaves{{0x1008, {}}, {0x1000, {}}, {0, frame}};
  NamedFixup load = split_fixup("v__kr1x82");
  EXPECT_EQ(run_value_program(load.fixup.steps, leaves).value, std::optional<uint64_t>(0x2a));
  leaves[0].value = 0x1010;
  ProgramResult outside = run_value_program(load.fixup.steps, leaves);
  EXPECT_FALSE(outside.value) << "past the window's end";
  EXPECT_STREQ(outside.why, "address outside the fetched window");
}

TEST(ValueFixup, NamesRoundTrip) {
  ValueFixup term1;
  term1.term = 1;
  term1.steps = {{ValueOp::PushTerm, 1}, {ValueOp::Add}};
  ValueFixup term2 = term1;
  term2.term = 2;
  term2.steps = {{ValueOp::PushTerm, 2}, {ValueOp::Sub}};
  ValueFixup general;
  general.term = 3;
  general.steps = {{ValueOp::PushTerm, 3}, {ValueOp::PushConst, 0x30}, {ValueOp::Mul}, {ValueOp::Xor}};
  const ValueFixup cases[] = {ValueFixup::add_and_keep(0, 5, 0), ValueFixup::add_and_keep(-1, 32, 0),
                              ValueFixup::add_and_keep(0x2ed0, 0, 0), ValueFixup::add_and_keep(-0x10, 0, 16),
                              ValueFixup::add_and_keep(0, 0, 8), term1, term2, general};
  for (const ValueFixup &f : cases) {
    std::string name = field_name_with_fixup("delta", f);
    NamedFixup back = split_fixup(name);
    EXPECT_EQ(back.name, "delta") << name;
    EXPECT_EQ(back.fixup, f) << name;
  }
  EXPECT_EQ(field_name_with_fixup("delta", ValueFixup::add_and_keep(0, 5, 0)), "delta__ks5");
  EXPECT_EQ(field_name_with_fixup("level", ValueFixup::add_and_keep(-1, 32, 0)), "level__km1s32");
  EXPECT_EQ(field_name_with_fixup("a", ValueFixup::add_and_keep(0x2ed0, 0, 0)), "a__kp2ed0");
  EXPECT_EQ(field_name_with_fixup("plain", {}), "plain");
  EXPECT_EQ(field_name_with_fixup("w", term2), "w__kn2") << "a term subtracted keeps its short name";
  EXPECT_EQ(field_name_with_fixup("y", general), "y__k3r3k30MX");
}

TEST(ValueFixup, DisplayStepsRoundTripAndLeaveTheValueAsItIs) {
  // How the decoder shows a value the kernel has no type for: a double's
  // bits (g8), a counted string's window cut at term 1 (r1y), a
  // std::vector's elements counted as (finish - start) / 4 (r1r2Sk4Dz).
  ValueFixup dbl;
  dbl.steps = {{ValueOp::ShowFloat, 8}};
  ValueFixup text;
  text.term = 1;
  text.steps = {{ValueOp::PushTerm, 1}, {ValueOp::ShowText}};
  ValueFixup items;
  items.term = 1;
  items.steps = {{ValueOp::PushTerm, 1}, {ValueOp::PushTerm, 2}, {ValueOp::Sub}, {ValueOp::PushConst, 4},
                 {ValueOp::Div}, {ValueOp::ShowFloat, 4}, {ValueOp::ShowItems}};
  EXPECT_EQ(field_name_with_fixup("unit", dbl), "unit__kg8");
  EXPECT_EQ(field_name_with_fixup("name", text), "name__k1r1y");
  EXPECT_EQ(field_name_with_fixup("ids", items), "ids__k1r1r2Sk4Dg4z");
  for (const ValueFixup &f : {dbl, text, items}) EXPECT_EQ(split_fixup(field_name_with_fixup("v", f)).fixup, f);
  EXPECT_EQ(dbl.apply(0x3ff8000000000000), 0x3ff8000000000000u) << "the bits pass through";
  const ProgramLeaf leaves[] = {{0, {}}, {0x1018, {}}, {0x1000, {}}};
  EXPECT_EQ(run_value_program(items.steps, leaves).value, 6u) << "24 bytes of 4-byte elements";
  // Only 4- and 8-byte floats exist for the decoder.
  EXPECT_TRUE(split_fixup("x__kg2").fixup.empty());
  EXPECT_TRUE(split_fixup("x__kg16").fixup.empty());
  ValueFixup x87;
  x87.steps = {{ValueOp::ShowFloat, 10}};  // an x87 long double's 10 bytes
  EXPECT_EQ(split_fixup("x__kg10").fixup, x87);
}

TEST(ValueFixup, AnOptionalValueIsAbsentWhenItsFlagSaysSo) {
  // Rust's Option<i32>: term 1 is the discriminant, Some when it is 1
  // (r1 k1 E a2); the contained value is the primary's, left as it is.
  ValueFixup option;
  option.term = 1;
  option.steps = {{ValueOp::PushTerm, 1}, {ValueOp::PushConst, 1}, {ValueOp::Eq}, {ValueOp::Present, 2}};
  EXPECT_EQ(field_name_with_fixup("count", option), "count__k1r1k1Ea2");
  EXPECT_EQ(split_fixup("count__k1r1k1Ea2").fixup, option);
  const ProgramLeaf some[] = {{5, {}}, {1, {}}};
  ProgramResult r = run_value_program(option.steps, some);
  EXPECT_EQ(r.value, 5u);
  EXPECT_FALSE(r.absent);
  const ProgramLeaf none[] = {{0x7fff1234, {}}, {0, {}}};  // the payload's bytes are not a value
  r = run_value_program(option.steps, none);
  EXPECT_FALSE(r.value);
  EXPECT_TRUE(r.absent);
  EXPECT_EQ(r.why, nullptr) << "absent is no error";
  EXPECT_EQ(optional_flavor(option.steps), 2u);
  EXPECT_EQ(optional_flavor(std::vector<ValueStep>{{ValueOp::ShowBool}}), 0u);
  // Only std::optional (1) and Rust's Option (2) are shown.
  EXPECT_TRUE(split_fixup("x__ka3").fixup.empty());
  EXPECT_TRUE(split_fixup("x__ka0").fixup.empty());
}

TEST(ValueFixup, AnEnumCarriesItsTypesHandle) {
  ValueFixup e;
  e.steps = {{ValueOp::ShowEnum, 0x2f1}};
  EXPECT_EQ(field_name_with_fixup("c", e), "c__kq2f1");
  EXPECT_EQ(split_fixup("c__kq2f1").fixup, e);
  EXPECT_EQ(e.apply(5), 5u) << "the number passes through: the names are the printer's";
  EXPECT_TRUE(split_fixup("c__kq").fixup.empty()) << "a handle is needed";
  EXPECT_TRUE(split_fixup("c__kq2F1").fixup.empty() || split_fixup("c__kq2F1").fixup != e);
}

TEST(ValueFixup, OrdinaryNamesAreLeftAlone) {
  for (const char *name : {"count", "__k", "x__k", "x__ks", "x__ks0", "x__ks65", "x__kp", "x__kpXY", "x__ks5junk",
                           "x__kP10", "my__kind", "x__kt0", "x__kt", "x__kt1s5", "x__k0", "x__k01A", "x__kx3",
                           "x__kr", "x__kq", "x__kg"}) {
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
  EXPECT_EQ(def->args[0].fixup, ValueFixup::add_and_keep(0, 5, 0));
  EXPECT_TRUE(def->args[1].fixup.empty());
  EXPECT_EQ(format_definition(*def), "p:g/weigh /bin/prog:0x11f0 delta__ks5=+0(%di):b5@3/32 n=%si:s32");
}

}  // namespace
}  // namespace kpp
