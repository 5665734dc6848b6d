// The per-architecture tables, each defined in its own file (private to arch/).
#pragma once
#include "arch/arch.h"

namespace kpp::arch {
extern const Registers x86_64_registers;
extern const Registers arm64_registers;
extern const Registers riscv64_registers;
extern const Registers s390x_registers;
extern const Registers ppc64le_registers;
extern const Registers loongarch64_registers;
}  // namespace kpp::arch
