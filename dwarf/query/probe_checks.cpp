// Whether a kernel probe's address starts an instruction: the line table
// says so where it has a row, else the ELF image's disassembler
// (dwarf/elf/elf_sections.cpp) decodes up to it.
#include "dwarf/query/llvm_debug_info.h"

namespace kpp::dwarf {

bool LlvmDebugInfo::is_instruction_start(const Function &fn, uint64_t address) {
  if (address == fn.entry) return true;
  for (const LineTables::Row &row : lines_.rows_of(fn))
    if (row.address == address) return true;
  // No row there: decode the instructions from the start of the range that
  // holds it (the function's entry when that range has it), as the kernel's
  // own x86 check decodes from the symbol's start.
  if (!image_.decodes_instructions()) return false;
  for (const AddressRange &r : fn.ranges) {
    if (!r.contains(address)) continue;
    uint64_t start = r.contains(fn.entry) ? fn.entry : r.begin;
    return image_.starts_instruction(start, r.end, address).value_or(false);
  }
  return false;
}

std::string LlvmDebugInfo::instruction_oracle() {
  return image_.decodes_instructions() ? "the line table and the disassembler" : "the line table";
}

}  // namespace kpp::dwarf
