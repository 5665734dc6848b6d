// The note's operands as fetch-args: the forms gcc emits on x86_64, each
// with the fetch-arg and type perf 6.1 writes for it (perf probe -D on
// python3.11's and libstdc++'s markers: "-4@112(%rsp)" -> "+112(%sp):s32",
// "8@%rbx" -> "%bx:u64", "-4@%ebp" -> "%bp:s32", "8@-80(%rbx)" -> "-80(%bx):u64").
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "dwarf/elf_reader.h"
#include "src/sdt/sdt_notes.h"
#include "src/sdt/sdt_operand.h"
#include "tests/common/run_command.h"

namespace kpp::sdt {
namespace {

const std::string fixture = std::string(KPP_SDT_FIXTURE_DIR) + "/sdt_pie";

struct OperandCase {
  const char *note;
  const char *fetch;
  const char *type;
};

class Operand : public ::testing::TestWithParam<OperandCase> {};

TEST_P(Operand, TranslatesAsPerfDoes) {
  auto elf = open_marker_file(fixture);
  ASSERT_TRUE(elf) << elf.error().message;
  OperandContext where{*elf, 0x1000, 0x1000};
  auto op = translate_operand(GetParam().note, where);
  ASSERT_TRUE(op) << op.error().message;
  EXPECT_EQ(op->fetch, GetParam().fetch);
  EXPECT_EQ(operand_type(*op), GetParam().type);
}

INSTANTIATE_TEST_SUITE_P(
    GccForms, Operand,
    ::testing::Values(OperandCase{"8@%rbx", "%bx", "u64"}, OperandCase{"-4@112(%rsp)", "+112(%sp)", "s32"},
                      OperandCase{"8@-80(%rbx)", "-80(%bx)", "u64"}, OperandCase{"4@$5", "\\5", "u32"},
                      OperandCase{"-4@$-7", "\\-7", "s32"}, OperandCase{"-4@%ebp", "%bp", "s32"},
                      OperandCase{"8@%r12", "%r12", "u64"}, OperandCase{"-4@%r13d", "%r13", "s32"},
                      OperandCase{"1@%al", "%ax", "u8"}, OperandCase{"2@%si", "%si", "u16"},
                      OperandCase{"8@(%rdi)", "+0(%di)", "u64"}, OperandCase{"-8@0x10(%rsp)", "+16(%sp)", "s64"},
                      OperandCase{"%rdx", "%dx", ""}));

// "-8@g_total(%rip)": the global's address as the kernel's "@+OFFSET",
// which it adds to where the probed segment is mapped; the address from nm.
TEST(OperandGlobal, RipRelativeSymbolBecomesAnOffsetFromTheSegment) {
  test::CommandRun nm = test::run_command("nm '" + fixture + "'");
  ASSERT_TRUE(nm.started);
  std::istringstream lines(nm.out);
  uint64_t address = 0;
  for (std::string s; std::getline(lines, s);)
    if (s.size() > 19 && s.substr(19) == "g_total") address = std::stoull(s.substr(0, 16), nullptr, 16);
  ASSERT_NE(address, 0u) << "nm shows no g_total";
  auto elf = open_marker_file(fixture);
  ASSERT_TRUE(elf);
  // A marker at 0x1234 in a segment mapped 0x1000 above its file offset.
  OperandContext where{*elf, 0x1234, 0x234};
  auto op = translate_operand("-8@g_total(%rip)", where);
  ASSERT_TRUE(op) << op.error().message;
  char expected[64];
  std::snprintf(expected, sizeof expected, "@+0x%llx", static_cast<unsigned long long>(address - 0x1000));
  EXPECT_EQ(op->fetch, expected);
  EXPECT_EQ(operand_type(*op), "s64");
}

struct RefusedCase {
  const char *note;
  const char *why;
};

class RefusedOperand : public ::testing::TestWithParam<RefusedCase> {};

TEST_P(RefusedOperand, SaysWhy) {
  auto elf = open_marker_file(fixture);
  ASSERT_TRUE(elf);
  OperandContext where{*elf, 0x1000, 0x1000};
  auto op = translate_operand(GetParam().note, where);
  ASSERT_FALSE(op) << op->fetch;
  EXPECT_NE(op.error().message.find(GetParam().why), std::string::npos) << op.error().message;
  EXPECT_NE(op.error().message.find(GetParam().note), std::string::npos) << "the operand is named";
}

INSTANTIATE_TEST_SUITE_P(
    Forms, RefusedOperand,
    ::testing::Values(RefusedCase{"8@(%rax,%rbx,8)", "indexed"}, RefusedCase{"3@%rax", "not 1, 2, 4 or 8"},
                      RefusedCase{"1@%ah", "no register"}, RefusedCase{"8@nosuchsymbol(%rip)", "no symbol"},
                      RefusedCase{"8@12(%xyz)", "unknown register"}, RefusedCase{"8@$sym", "not a number"},
                      RefusedCase{"8@", "empty"}));

TEST(OperandString, APointerIsReadThroughAndAConstantIsRefused) {
  SdtOperand reg{8, false, SdtOperand::Kind::Register, "%di"};
  EXPECT_EQ(*dereference(reg), "+0(%di)");
  SdtOperand mem{8, false, SdtOperand::Kind::Memory, "-80(%bx)"};
  EXPECT_EQ(*dereference(mem), "+0(-80(%bx))");
  SdtOperand imm{4, false, SdtOperand::Kind::Immediate, "\\5"};
  EXPECT_FALSE(dereference(imm));
}

}  // namespace
}  // namespace kpp::sdt
