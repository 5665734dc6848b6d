// ppc64le: DWARF 0-31 are the GPRs (ELFv2 ABI); the kernel calls them %gprN.
#include "arch/tables.h"

namespace kpp::arch {
namespace {
constexpr std::string_view regs[] = {
    "%gpr0",  "%gpr1",  "%gpr2",  "%gpr3",  "%gpr4",  "%gpr5",  "%gpr6",  "%gpr7",
    "%gpr8",  "%gpr9",  "%gpr10", "%gpr11", "%gpr12", "%gpr13", "%gpr14", "%gpr15",
    "%gpr16", "%gpr17", "%gpr18", "%gpr19", "%gpr20", "%gpr21", "%gpr22", "%gpr23",
    "%gpr24", "%gpr25", "%gpr26", "%gpr27", "%gpr28", "%gpr29", "%gpr30", "%gpr31",
};
constexpr std::string_view args[] = {"%gpr3", "%gpr4", "%gpr5", "%gpr6",
                                     "%gpr7", "%gpr8", "%gpr9", "%gpr10"};
constexpr RegisterBank unfetchable[] = {{32, 32, "f"}, {77, 32, "vr"}};
}  // namespace

const Registers ppc64le_registers{"ppc64le", 21 /* EM_PPC64 */, regs, args, "%gpr3", "%gpr1", 1, {}, unfetchable, "f1"};

}  // namespace kpp::arch
