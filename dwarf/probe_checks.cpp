// Facts the definition builder checks before it lets a kernel probe through:
// instruction starts (from the line table). Section marker symbols: elf_file.cpp.
#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

using namespace llvm;

bool LlvmDebugInfo::is_instruction_start(const Function &fn, uint64_t address) {
  if (address == fn.entry) return true;
  for (const LineRow &row : rows_of(fn))
    if (row.address == address) return true;
  return false;
}

}  // namespace kpp::dwarf
