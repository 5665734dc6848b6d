// Which compile unit, and which function DIE in it, hold a code address:
// the first step of every question asked by address (source_of(),
// frames_at(), the DWARF behind a symbol). Read from .debug_aranges raw,
// from the split unit when there is one (dwarf/source/split_units.h), and in
// a relocatable object (a .ko) from its units' own ranges
// (relocatable_units.cpp), since LLVM misreads its .debug_aranges.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>

#include "dwarf/elf/section_layout.h"
#include "dwarf/source/split_units.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

class UnitsAt {
 public:
  // The parts outlive this. `layout`: the section layout of a relocatable
  // object (empty for a linked file).
  UnitsAt(UnitChecks &checks, SplitUnits &split, const SectionLayout &layout)
      : checks_(checks), split_(split), layout_(layout) {}

  // The function DIE at `address` and its unit, from the split unit when
  // there is one (BlockDIE is not looked for).
  llvm::DWARFContext::DIEsForAddress dies_at(uint64_t address);
  // The compile unit whose code holds `address`.
  llvm::DWARFCompileUnit *unit_at(uint64_t address);

 private:
  // dies_at() and unit_at() in a relocatable object: the units found by
  // their own ranges (relocatable_units.cpp).
  llvm::DWARFContext::DIEsForAddress relocatable_dies_at(uint64_t address);
  llvm::DWARFCompileUnit *relocatable_unit_at(uint64_t address);

  UnitChecks &checks_;
  SplitUnits &split_;
  const SectionLayout &layout_;
  struct UnitRange {
    uint64_t begin, end;
    llvm::DWARFCompileUnit *unit;
  };
  std::optional<std::vector<UnitRange>> relocatable_units_;  // sorted by begin; made on first use
};

}  // namespace kpp::dwarf
