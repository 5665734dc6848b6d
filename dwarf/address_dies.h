// DWARFContext::getDIEsForAddress, guarded against hostile DWARF.
#pragma once

#include <cstdint>

#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>

namespace kpp::dwarf {

// LLVM 19 dereferences a null DIE (a crash, found by tests/fuzz) when the
// unit that covers `address` has no readable DIEs: getSubroutineForAddress
// walks from getUnitDIE() without checking it. Such a unit answers nothing.
inline llvm::DWARFContext::DIEsForAddress dies_for_address(llvm::DWARFContext &context, uint64_t address) {
  llvm::DWARFCompileUnit *unit = context.getCompileUnitForCodeAddress(address);
  if (!unit || !unit->getUnitDIE(false).isValid()) return {};
  return context.getDIEsForAddress(address);
}

}  // namespace kpp::dwarf
