// x86_64: DWARF numbering from the System V psABI (figure 3.36); names as
// the kernel's regs_query_register_offset() knows them (struct pt_regs).
#include "arch/tables.h"

namespace kpp::arch {
namespace {
constexpr std::string_view regs[] = {
    "%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp", "%sp",   // 0-7
    "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
    "%ip",                                                    // 16: return address column
};
constexpr std::string_view args[] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};
constexpr RegisterBank unfetchable[] = {{17, 16, "xmm"}, {33, 8, "st"}, {41, 8, "mm"}};
}  // namespace

const Registers x86_64_registers{"x86_64", 62 /* EM_X86_64 */, regs, args, "%ax", "%sp", 7, "%ip", unfetchable, "xmm0"};

}  // namespace kpp::arch
