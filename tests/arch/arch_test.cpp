// DWARF register number -> the name the kernel's fetch-args take, for every
// architecture we compile in. Expected names come from the psABIs' DWARF
// numbering and the kernel's regs_query_register_offset() tables:
//   x86_64      System V AMD64 psABI fig. 3.36 (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi,
//               5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15); kernel arch/x86/kernel/ptrace.c
//               regoffset_table and perf's arch/x86/util/dwarf-regs.c ("%ax", "%dx", ...).
//   arm64       AAELF64 / IHI0057 "DWARF register names" (0-30 x0-x30, 31 sp);
//               arch/arm64/kernel/ptrace.c GPR_OFFSET_NAME(0..30) = "x0".."x30", "sp".
//   s390x       s390x ELF ABI (0-15 r0-r15); arch/s390/kernel/ptrace.c
//               regs_query_register_offset() takes "r<N>", N < NUM_GPRS (16).
//   ppc64le     ELFv2 ABI (0-31 r0-r31); arch/powerpc/kernel/ptrace/ptrace.c
//               GPR_OFFSET_NAME(num) = "r<num>" and "gpr<num>".
//   riscv64     RISC-V ELF psABI (DWARF 0-31 = x0-x31, a0 = x10); arch/riscv/kernel/ptrace.c
//               regoffset_table uses ABI names (ra, sp, gp, tp, t0.., s0.., a0..a7); x0
//               (zero) has no pt_regs slot.
//   loongarch64 LoongArch ELF psABI (DWARF 0-31 = r0-r31, a0-a7 = r4-r11);
//               arch/loongarch/kernel/ptrace.c GPR_OFFSET_NAME(num) = "r<num>".
#include <gtest/gtest.h>

#include <elf.h>

#include <map>
#include <set>
#include <string>

#include "arch/arch.h"

namespace kpp {
namespace {

struct MachineCase {
  const char *name;
  uint16_t e_machine;
  std::map<unsigned, std::string> expected;  // DWARF number -> fetch-arg name
  unsigned first_unnamed;                    // the first DWARF number past the integer registers
  std::string stack_pointer;
  std::string first_arg;
  std::string return_reg;
};

void PrintTo(const MachineCase &c, std::ostream *os) { *os << c.name; }

std::map<unsigned, std::string> numbered(const std::string &prefix, unsigned first, unsigned last,
                                         unsigned dwarf_first) {
  std::map<unsigned, std::string> m;
  for (unsigned n = first; n <= last; ++n) m[dwarf_first + n - first] = prefix + std::to_string(n);
  return m;
}

std::map<unsigned, std::string> merged(std::map<unsigned, std::string> a, const std::map<unsigned, std::string> &b) {
  a.insert(b.begin(), b.end());
  return a;
}

const std::vector<MachineCase> &machine_cases() {
  static const std::vector<MachineCase> cases = {
      {"x86_64", EM_X86_64,
       merged({{0, "%ax"}, {1, "%dx"}, {2, "%cx"}, {3, "%bx"}, {4, "%si"}, {5, "%di"}, {6, "%bp"}, {7, "%sp"}},
              numbered("%r", 8, 15, 8)),
       17 /* xmm0 */, "%sp", "%di", "%ax"},
      {"arm64", EM_AARCH64, merged(numbered("%x", 0, 30, 0), {{31, "%sp"}}), 32 /* pc/elr, then v0 at 64 */,
       "%sp", "%x0", "%x0"},
      {"s390x", EM_S390, numbered("%r", 0, 15, 0), 16 /* f0 */, "%r15", "%r2", "%r2"},
      {"ppc64le", EM_PPC64, numbered("%gpr", 0, 31, 0), 32 /* f0 */, "%gpr1", "%gpr3", "%gpr3"},
      {"riscv64", EM_RISCV,
       {{1, "%ra"}, {2, "%sp"}, {8, "%s0"}, {10, "%a0"}, {11, "%a1"}, {17, "%a7"}, {18, "%s2"}, {27, "%s11"},
        {28, "%t3"}, {31, "%t6"}},
       32 /* f0 */, "%sp", "%a0", "%a0"},
      {"loongarch64", EM_LOONGARCH, numbered("%r", 0, 31, 0), 32 /* f0 */, "%r3", "%r4", "%r4"},
  };
  return cases;
}

class EveryMachine : public testing::TestWithParam<MachineCase> {};

TEST_P(EveryMachine, IsFoundByItsElfMachine) {
  const MachineCase &c = GetParam();
  const arch::Registers *regs = arch::for_machine(c.e_machine);
  ASSERT_NE(regs, nullptr) << c.name;
  EXPECT_EQ(regs->name, c.name);
  EXPECT_EQ(regs->e_machine, c.e_machine);
}

TEST_P(EveryMachine, NamesTheIntegerRegistersAsTheKernelDoes) {
  const MachineCase &c = GetParam();
  const arch::Registers *regs = arch::for_machine(c.e_machine);
  ASSERT_NE(regs, nullptr);
  for (const auto &[regno, name] : c.expected) EXPECT_EQ(regs->fetch_name(regno), name) << "DWARF " << regno;
}

TEST_P(EveryMachine, GivesNoNameOutOfRange) {
  const MachineCase &c = GetParam();
  const arch::Registers *regs = arch::for_machine(c.e_machine);
  ASSERT_NE(regs, nullptr);
  EXPECT_EQ(regs->fetch_name(c.first_unnamed), "") << "DWARF " << c.first_unnamed;
  EXPECT_EQ(regs->fetch_name(1000), "");
  EXPECT_EQ(regs->fetch_name(~0u), "");
}

TEST_P(EveryMachine, KnowsItsStackPointerArgumentsAndReturnRegister) {
  const MachineCase &c = GetParam();
  const arch::Registers *regs = arch::for_machine(c.e_machine);
  ASSERT_NE(regs, nullptr);
  EXPECT_EQ(regs->stack_pointer, c.stack_pointer);
  EXPECT_EQ(regs->fetch_name(static_cast<unsigned>(regs->dwarf_sp)), c.stack_pointer);
  ASSERT_FALSE(regs->arg_regs.empty());
  EXPECT_EQ(regs->arg_regs.front(), c.first_arg);
  EXPECT_EQ(regs->return_reg, c.return_reg);
}

TEST(ArchRegisters, NamesTheFloatingPointRegistersItCannotFetch) {
  // A value DWARF puts there is refused by name ("it lives in xmm1"), never read from another register.
  const arch::Registers *x86 = arch::for_machine(EM_X86_64);
  ASSERT_NE(x86, nullptr);
  EXPECT_EQ(x86->unfetchable_name(17), "xmm0");
  EXPECT_EQ(x86->unfetchable_name(32), "xmm15");
  EXPECT_EQ(x86->unfetchable_name(33), "st0");
  EXPECT_EQ(x86->unfetchable_name(7), "") << "rsp is fetched as %sp";
  EXPECT_EQ(x86->fetch_name(17), "");
  EXPECT_EQ(x86->float_return_reg, "xmm0");
  const arch::Registers *arm = arch::for_machine(EM_AARCH64);
  ASSERT_NE(arm, nullptr);
  EXPECT_EQ(arm->unfetchable_name(64), "v0");
  EXPECT_EQ(arm->float_return_reg, "v0");
  for (const arch::Registers *regs : arch::all()) EXPECT_FALSE(regs->float_return_reg.empty()) << regs->name;
}

TEST_P(EveryMachine, NamesAreFetchArgRegisters) {
  // Every name the kernel can take starts with '%', and no two DWARF numbers share one.
  const arch::Registers *regs = arch::for_machine(GetParam().e_machine);
  ASSERT_NE(regs, nullptr);
  std::set<std::string_view> seen;
  for (std::string_view name : regs->dwarf_regs) {
    if (name.empty()) continue;
    EXPECT_EQ(name.front(), '%') << name;
    EXPECT_TRUE(seen.insert(name).second) << name << " twice";
  }
  for (std::string_view arg : regs->arg_regs) EXPECT_TRUE(seen.count(arg)) << arg << " has no DWARF number";
}

INSTANTIATE_TEST_SUITE_P(Arch, EveryMachine, testing::ValuesIn(machine_cases()),
                         [](const testing::TestParamInfo<MachineCase> &info) { return std::string(info.param.name); });

TEST(Arch, RiscvZeroRegisterHasNoName) {
  // x0 is hard-wired zero and has no slot in struct pt_regs.
  const arch::Registers *regs = arch::for_machine(EM_RISCV);
  ASSERT_NE(regs, nullptr);
  EXPECT_EQ(regs->fetch_name(0), "");
}

TEST(Arch, EveryTableIsCoveredHere) {
  std::set<uint16_t> tested;
  for (const MachineCase &c : machine_cases()) tested.insert(c.e_machine);
  for (const arch::Registers *regs : arch::all()) {
    EXPECT_TRUE(tested.count(regs->e_machine)) << regs->name << " has no test case";
    EXPECT_EQ(arch::for_machine(regs->e_machine), regs);
  }
  EXPECT_EQ(arch::all().size(), tested.size());
}

TEST(Arch, UnknownMachineHasNoTable) {
  EXPECT_EQ(arch::for_machine(EM_NONE), nullptr);
  EXPECT_EQ(arch::for_machine(EM_386), nullptr);  // 32-bit x86: not a table we have
  EXPECT_EQ(arch::for_machine(EM_ARM), nullptr);
  EXPECT_EQ(arch::for_machine(0xffff), nullptr);
}

}  // namespace
}  // namespace kpp
