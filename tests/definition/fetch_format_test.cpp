// dwarf::FetchExpr -> the kernel's fetch-arg syntax (kprobetrace.rst "FETCHARGS"):
//   %REG, @ADDR, @SYM[+|-offs], \IMM, +|-[u]OFFS(FETCHARG); uprobes also take
//   @+OFFSET, "fetch memory at OFFSET (OFFSET from same file as PATH)"
// (uprobetracer.rst). The kernel turns @+OFFSET into an address with the probe's
// own mapping: base = probe address - probe file offset (translate_user_vaddr()
// in kernel/trace/trace_uprobe.c), so OFFSET must be the global's link address
// minus (the probe's link address - its file offset).
#include <gtest/gtest.h>

#include <elf.h>

#include "arch/arch.h"
#include "src/definition/fetch_format.h"
#include "tests/definition/fake_debug_info.h"

namespace kpp {
namespace {

using dwarf::FetchExpr;
using testing_support::FakeDebugInfo;

FetchExpr reg(int regno, std::vector<int64_t> loads = {}) {
  FetchExpr e;
  e.root = FetchExpr::Root::Register;
  e.dwarf_reg = regno;
  e.loads = std::move(loads);
  return e;
}

FetchExpr global(uint64_t address, std::vector<int64_t> loads = {}) {
  FetchExpr e;
  e.root = FetchExpr::Root::GlobalMemory;
  e.address = address;
  e.loads = std::move(loads);
  return e;
}

FetchExpr constant(int64_t value) {
  FetchExpr e;
  e.root = FetchExpr::Root::Constant;
  e.constant = value;
  return e;
}

class FetchFormat : public testing::Test {
 protected:
  const arch::Registers &x86 = *arch::for_machine(EM_X86_64);
  FakeDebugInfo debug;

  std::string kernel(const FetchExpr &e) {
    FetchFormatter f{x86, debug};
    auto out = f.format(e);
    EXPECT_TRUE(out) << out.error().message;
    return out ? *out : "<error>";
  }
  std::string user(const FetchExpr &e, uint64_t probe_address, uint64_t probe_file_offset) {
    FetchFormatter f{x86, debug, true, probe_address, probe_file_offset};
    auto out = f.format(e);
    EXPECT_TRUE(out) << out.error().message;
    return out ? *out : "<error>";
  }
};

TEST_F(FetchFormat, RegisterRoots) {
  EXPECT_EQ(kernel(reg(5)), "%di");
  EXPECT_EQ(kernel(reg(0)), "%ax");
  EXPECT_EQ(kernel(reg(7)), "%sp");
  EXPECT_EQ(kernel(reg(15)), "%r15");
}

TEST_F(FetchFormat, LoadsNestInsideOut) {
  EXPECT_EQ(kernel(reg(5, {8})), "+8(%di)");
  EXPECT_EQ(kernel(reg(5, {8, 0})), "+0(+8(%di))");
  EXPECT_EQ(kernel(reg(6, {-24})), "-24(%bp)");
  EXPECT_EQ(kernel(reg(6, {-24, 0, 0})), "+0(+0(-24(%bp)))");
  EXPECT_EQ(kernel(reg(7, {16})), "+16(%sp)");
  EXPECT_EQ(kernel(reg(4, {0})), "+0(%si)");
}

TEST_F(FetchFormat, Constants) {
  EXPECT_EQ(kernel(constant(7)), "\\7");
  EXPECT_EQ(kernel(constant(0)), "\\0");
  EXPECT_EQ(kernel(constant(-1)), "\\-1");
}

TEST_F(FetchFormat, UprobeGlobalWhereFileOffsetsEqualAddresses) {
  // A PIE: probe at link address 0x1169, file offset 0x1169; the global at 0x4010.
  EXPECT_EQ(user(global(0x4010), 0x1169, 0x1169), "@+0x4010");
  EXPECT_EQ(user(global(0x4010, {8}), 0x1169, 0x1169), "+8(@+0x4010)");
}

TEST_F(FetchFormat, UprobeGlobalInASegmentWithAnotherDelta) {
  // A non-PIE linked at 0x400000: the probe at 0x401139 is at file offset
  // 0x1139; the global at 0x404028 sits in .data/.bss, whose file offset is
  // not 0x4028. The kernel adds (probe address - 0x1139) to what we write.
  EXPECT_EQ(user(global(0x404028), 0x401139, 0x1139), "@+0x4028");
}

TEST_F(FetchFormat, KernelGlobalBySymbol) {
  debug.symbols = {{0xffffffff82000000, "jiffies"}, {0xffffffff82000100, "init_task"}};
  EXPECT_EQ(kernel(global(0xffffffff82000000)), "@jiffies");
  EXPECT_EQ(kernel(global(0xffffffff82000108)), "@init_task+8");
  EXPECT_EQ(kernel(global(0xffffffff82000100, {16})), "+16(@init_task)");
}

TEST_F(FetchFormat, KernelGlobalWithoutSymbolByAddress) {
  EXPECT_EQ(kernel(global(0xffffffff82000000)), "@0xffffffff82000000");
}

TEST_F(FetchFormat, RegisterWithoutANameIsAnError) {
  FetchFormatter f{x86, debug};
  auto xmm0 = f.format(reg(17));
  ASSERT_FALSE(xmm0) << *xmm0;
  // A floating-point register is named, never read as another one.
  EXPECT_NE(xmm0.error().message.find("xmm0"), std::string::npos) << xmm0.error().message;
  auto beyond = f.format(reg(60));
  ASSERT_FALSE(beyond) << *beyond;
  EXPECT_NE(beyond.error().message.find("60"), std::string::npos) << beyond.error().message;
  EXPECT_NE(beyond.error().message.find("x86_64"), std::string::npos) << beyond.error().message;

  const arch::Registers &riscv = *arch::for_machine(EM_RISCV);
  FetchFormatter r{riscv, debug};
  EXPECT_FALSE(r.format(reg(0)));       // x0, the zero register
  EXPECT_FALSE(r.format(reg(-1, {8})));  // no register at all
  EXPECT_EQ(*r.format(reg(10, {8})), "+8(%a0)");
}

TEST_F(FetchFormat, OtherArchitectures) {
  FetchFormatter arm{*arch::for_machine(EM_AARCH64), debug};
  EXPECT_EQ(*arm.format(reg(31, {-8})), "-8(%sp)");
  FetchFormatter ppc{*arch::for_machine(EM_PPC64), debug};
  EXPECT_EQ(*ppc.format(reg(3, {0})), "+0(%gpr3)");
}

}  // namespace
}  // namespace kpp
