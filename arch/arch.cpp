#include "arch/arch.h"

#include "arch/tables.h"

namespace kpp::arch {
namespace {
const Registers *const tables[] = {&x86_64_registers,  &arm64_registers,   &riscv64_registers,
                                   &s390x_registers,   &ppc64le_registers, &loongarch64_registers};
}  // namespace

const Registers *for_machine(uint16_t e_machine) {
  for (const Registers *table : tables)
    if (table->e_machine == e_machine) return table;
  return nullptr;
}

std::span<const Registers *const> all() { return tables; }

std::string Registers::unfetchable_name(unsigned regno) const {
  for (const RegisterBank &bank : unfetchable)
    if (regno >= bank.first && regno - bank.first < bank.count)
      return std::string(bank.prefix) + std::to_string(regno - bank.first);
  return {};
}

}  // namespace kpp::arch
