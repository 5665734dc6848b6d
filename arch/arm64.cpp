// arm64: DWARF 0-30 are x0-x30 and 31 is sp (AAELF64 "DWARF register names");
// the kernel names them %x0..%x30 and %sp.
#include "arch/tables.h"

namespace kpp::arch {
namespace {
constexpr std::string_view regs[] = {
    "%x0",  "%x1",  "%x2",  "%x3",  "%x4",  "%x5",  "%x6",  "%x7",
    "%x8",  "%x9",  "%x10", "%x11", "%x12", "%x13", "%x14", "%x15",
    "%x16", "%x17", "%x18", "%x19", "%x20", "%x21", "%x22", "%x23",
    "%x24", "%x25", "%x26", "%x27", "%x28", "%x29", "%x30", "%sp",
};
constexpr std::string_view args[] = {"%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6", "%x7"};
constexpr RegisterBank unfetchable[] = {{64, 32, "v"}};
}  // namespace

const Registers arm64_registers{"arm64", 183 /* EM_AARCH64 */, regs, args, "%x0", "%sp", 31, "%pc", unfetchable, "v0"};

}  // namespace kpp::arch
