// loongarch64: DWARF 0-31 are r0-r31 (LoongArch ELF psABI); a0-a7 are r4-r11.
#include "arch/tables.h"

namespace kpp::arch {
namespace {
constexpr std::string_view regs[] = {
    "%r0",  "%r1",  "%r2",  "%r3",  "%r4",  "%r5",  "%r6",  "%r7",
    "%r8",  "%r9",  "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
    "%r16", "%r17", "%r18", "%r19", "%r20", "%r21", "%r22", "%r23",
    "%r24", "%r25", "%r26", "%r27", "%r28", "%r29", "%r30", "%r31",
};
constexpr std::string_view args[] = {"%r4", "%r5", "%r6", "%r7", "%r8", "%r9", "%r10", "%r11"};
constexpr RegisterBank unfetchable[] = {{32, 32, "f"}};
}  // namespace

const Registers loongarch64_registers{"loongarch64", 258 /* EM_LOONGARCH */, regs, args, "%r4", "%r3", 3, {}, unfetchable, "fa0"};

}  // namespace kpp::arch
