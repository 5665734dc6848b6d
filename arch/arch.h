// Per-architecture facts the definition builder needs: how the kernel's
// fetch-args name the register that DWARF numbers N, where arguments and the
// return value live, and which register is the stack pointer.
//
// Every table is compiled into every build and chosen by the ELF e_machine of
// the probed binary, never by #ifdef: a vmlinux for another architecture can
// be turned into definitions (-D) on this host.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kpp::arch {

// A run of DWARF register numbers that kprobes cannot fetch (floating-point
// and vector registers): `count` registers from `first`, named `prefix`N.
struct RegisterBank {
  unsigned first;
  unsigned count;
  std::string_view prefix;  // "xmm": DWARF 17 is xmm0 on x86_64
};

struct Registers {
  std::string_view name;                         // "x86_64"
  uint16_t e_machine;                            // EM_X86_64
  std::span<const std::string_view> dwarf_regs;  // DWARF number -> fetch-arg name ("%di"); "" = none
  std::span<const std::string_view> arg_regs;    // integer arguments in calling-convention order
  std::string_view return_reg;                   // where an integer return value lives
  std::string_view stack_pointer;
  int dwarf_sp;                                  // DWARF number of the stack pointer
  // The fetch-arg name of the program counter, which at a uprobe holds the
  // probe's own run-time address; empty where that is not known to hold.
  std::string_view instruction_pointer = {};
  // The floating-point and vector registers, by DWARF number, to name them
  // when a value living there is refused (fetch-args read only the
  // general registers of pt_regs).
  std::span<const RegisterBank> unfetchable = {};
  // Where the calling convention returns a floating-point result ("xmm0"),
  // which no fetch-arg reaches: $retval would read the integer register.
  std::string_view float_return_reg = {};

  // The fetch-arg name of DWARF register `regno` ("%di"), or empty when this
  // architecture's kprobes cannot fetch it (vector registers, out of range).
  std::string_view fetch_name(unsigned regno) const {
    return regno < dwarf_regs.size() ? dwarf_regs[regno] : std::string_view{};
  }
  // The name of DWARF register `regno` when it is one of `unfetchable`
  // ("xmm1"), else empty.
  std::string unfetchable_name(unsigned regno) const;
};

// The table for ELF machine `e_machine`, or nullptr when we have none.
const Registers *for_machine(uint16_t e_machine);

// Every table we have, for listing and for tests that cover all of them.
std::span<const Registers *const> all();

}  // namespace kpp::arch
