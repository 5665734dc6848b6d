// Which unit holds an address of a relocatable object (a kernel module's
// .ko), for dies_at(). LLVM 19 reads .debug_aranges without applying its
// relocations: in a .ko every arange then starts at 0 and names unit 0, so
// getCompileUnitForCodeAddress() finds no unit (or the wrong one) at the
// addresses the section layout gives (dwarf/elf/section_layout.h), and the
// units .debug_aranges lists are never looked at again. The units' own
// ranges (DW_AT_low_pc/high_pc, DW_AT_ranges) are relocated, laid out as
// the symbols are: they are what is searched here.
#include <algorithm>

#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>

#include "dwarf/query/die_links.h"
#include "dwarf/query/units_at.h"

namespace kpp::dwarf {

using namespace llvm;

DWARFCompileUnit *UnitsAt::relocatable_unit_at(uint64_t address) {
  if (!relocatable_units_) {
    relocatable_units_.emplace();
    // Only the unit DIEs are read here (checks_.unit_dwarf() checked them).
    for (const std::unique_ptr<DWARFUnit> &unit : checks_.unit_dwarf().compile_units()) {
      auto *cu = dyn_cast<DWARFCompileUnit>(unit.get());
      if (!cu || !cu->getUnitDIE(/*ExtractUnitDIEOnly=*/true).isValid()) continue;
      Expected<DWARFAddressRangesVector> ranges = cu->collectAddressRanges();
      if (!ranges) {
        consumeError(ranges.takeError());  // a unit that says nothing of its code answers nothing
        continue;
      }
      for (const DWARFAddressRange &r : *ranges)
        if (r.LowPC < r.HighPC) relocatable_units_->push_back({r.LowPC, r.HighPC, cu});
    }
    std::sort(relocatable_units_->begin(), relocatable_units_->end(),
              [](const UnitRange &a, const UnitRange &b) { return a.begin < b.begin; });
  }
  // The layout keeps sections apart: at most one range holds the address.
  auto after = std::upper_bound(relocatable_units_->begin(), relocatable_units_->end(), address,
                                [](uint64_t a, const UnitRange &r) { return a < r.begin; });
  if (after == relocatable_units_->begin()) return nullptr;
  const UnitRange &r = *std::prev(after);
  return address < r.end ? r.unit : nullptr;
}

DWARFContext::DIEsForAddress UnitsAt::relocatable_dies_at(uint64_t address) {
  DWARFContext::DIEsForAddress dies;
  dies.CompileUnit = relocatable_unit_at(address);
  if (!dies.CompileUnit) return dies;
  // Its other DIEs are read next: checked first (dwarf/source/unit_checks.h).
  checks_.enter(*dies.CompileUnit);
  // Split DWARF is not looked for: kbuild's modules do not use it.
  dies.FunctionDIE = innermost_function_at(*dies.CompileUnit, address);
  return dies;
}

}  // namespace kpp::dwarf
