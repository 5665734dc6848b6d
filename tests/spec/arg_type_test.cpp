// check_arg_type on its own: the other layers (definition parsing) use it too.
#include <gtest/gtest.h>

#include "src/spec/arg_type.h"

namespace kpp {
namespace {

class ValidType : public testing::TestWithParam<const char *> {};
TEST_P(ValidType, IsAccepted) { EXPECT_TRUE(check_arg_type(GetParam())) << GetParam(); }
INSTANTIATE_TEST_SUITE_P(PerfProbeTypes, ValidType,
                         testing::Values("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16",
                                         "x32", "x64", "u", "s", "x", "string", "ustring", "symbol", "b1@0/8",
                                         "b2@4/32", "b64@0/64", "u8[1]", "s32[64]", "x16[3]", "string[2]"));

class InvalidType : public testing::TestWithParam<const char *> {};
TEST_P(InvalidType, IsRefused) { EXPECT_FALSE(check_arg_type(GetParam())) << GetParam(); }
INSTANTIATE_TEST_SUITE_P(PerfProbeTypes, InvalidType,
                         testing::Values("", "u0", "u24", "x128", "int", "char*", "b", "b1@0", "b1@0/7", "b9@0/8",
                                         "b1@8/8", "bx@0/8", "u8[]", "u8[-1]", "symbol[2]", "b1@0/8[2]", "[4]",
                                         "U8", "string8"));

}  // namespace
}  // namespace kpp
