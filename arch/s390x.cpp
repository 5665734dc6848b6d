// s390x: DWARF 0-15 are the general registers r0-r15 (s390x ELF ABI).
#include "arch/tables.h"

namespace kpp::arch {
namespace {
constexpr std::string_view regs[] = {
    "%r0", "%r1", "%r2",  "%r3",  "%r4",  "%r5",  "%r6",  "%r7",
    "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
};
constexpr std::string_view args[] = {"%r2", "%r3", "%r4", "%r5", "%r6"};
}  // namespace

const Registers s390x_registers{"s390x", 22 /* EM_S390 */, regs, args, "%r2", "%r15", 15, {}, {}, "f0"};

}  // namespace kpp::arch
