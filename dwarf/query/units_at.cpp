// The compile unit and function DIE at an address: by .debug_aranges read
// raw, the split unit's DIEs when there is one (dwarf/source/split_units.h),
// a relocatable object's by its units' own ranges (relocatable_units.cpp).
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>

#include "dwarf/query/die_links.h"
#include "dwarf/query/units_at.h"
#include "dwarf/raw/raw_aranges.h"

namespace kpp::dwarf {

using namespace llvm;

DWARFCompileUnit *UnitsAt::unit_at(uint64_t address) {
  // The unit .debug_aranges names, read raw: LLVM's own table first reads
  // the unit DIE (and abbreviations) of every unit the section leaves out,
  // to collect their ranges: 179 of python3.11's 253 LTO units, ~4% of a
  // cold run. LLVM's is asked only for an address no arange covers.
  StringRef aranges = checks_.unit_dwarf().getDWARFObj().getArangesSection();
  if (auto offset = unit_at_address(std::string_view(aranges.data(), aranges.size()), address)) {
    DWARFCompileUnit *unit = checks_.unit_dwarf().getCompileUnitForOffset(*offset);
    if (unit && unit->getOffset() == *offset) return unit;
  }
  return checks_.unit_dwarf().getCompileUnitForCodeAddress(address);
}

DWARFContext::DIEsForAddress UnitsAt::dies_at(uint64_t address) {
  if (!layout_.empty()) return relocatable_dies_at(address);
  // The unit DIEs LLVM reads to find the unit were checked by checks_.unit_dwarf(),
  // the DIEs of the unit found are by enter().
  DWARFCompileUnit *unit = unit_at(address);
  if (!unit) return {};
  checks_.enter(*unit);
  // A unit that covers `address` but has no readable DIEs answers nothing
  // (LLVM 19's getSubroutineForAddress, which dies_at() still uses for split
  // units, dereferences its null unit DIE: a crash found by tests/fuzz).
  if (!unit->getUnitDIE(false).isValid()) return {};
  std::optional<uint64_t> index = split_.skeleton_index(unit);
  // Loaded here first, so that the places LLVM does not try are tried too
  // (and those it must not read are not).
  DWARFUnit *split = index ? split_.split_unit(*index) : nullptr;
  if (split && !split->getUnitDIE(false).isValid()) return {};
  // A split unit's DIEs are found as LLVM finds them (the skeleton's ranges
  // first); callers read only the function DIE.
  if (split) return checks_.unit_dwarf().getDIEsForAddress(address, /*CheckDWO=*/true);
  DWARFContext::DIEsForAddress dies;
  dies.CompileUnit = unit;
  dies.FunctionDIE = innermost_function_at(*unit, address);
  return dies;
}

}  // namespace kpp::dwarf
