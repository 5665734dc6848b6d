// riscv64: DWARF 0-31 are x0-x31; the kernel uses the ABI names of pt_regs.
#include "arch/tables.h"

namespace kpp::arch {
namespace {
constexpr std::string_view regs[] = {
    "",     "%ra",  "%sp",  "%gp",  "%tp",  "%t0",  "%t1",  "%t2",   // x0 (zero) has no slot
    "%s0",  "%s1",  "%a0",  "%a1",  "%a2",  "%a3",  "%a4",  "%a5",
    "%a6",  "%a7",  "%s2",  "%s3",  "%s4",  "%s5",  "%s6",  "%s7",
    "%s8",  "%s9",  "%s10", "%s11", "%t3",  "%t4",  "%t5",  "%t6",
};
constexpr std::string_view args[] = {"%a0", "%a1", "%a2", "%a3", "%a4", "%a5", "%a6", "%a7"};
constexpr RegisterBank unfetchable[] = {{32, 32, "f"}};
}  // namespace

const Registers riscv64_registers{"riscv64", 243 /* EM_RISCV */, regs, args, "%a0", "%sp", 2, {}, unfetchable, "fa0"};

}  // namespace kpp::arch
