// The variables visible at an address, and where each one's value lives
// there (variables.cpp: scopes; location.cpp: a DIE's location list or
// constant, its expression evaluated with the frame base and the CFA);
// a function's return type. DebugInfo's variables_at(), variable_at() and
// return_type().
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDie.h>

#include "dwarf/debug_info.h"
#include "dwarf/expr/cfa.h"
#include "dwarf/query/types.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"

namespace kpp::dwarf {

class Variables {
 public:
  // The parts outlive this.
  Variables(DwarfFiles &files, SplitUnits &split, Types &types, FrameTables &frames)
      : files_(files), split_(split), types_(types), frames_(frames) {}

  std::vector<Variable> variables_at(const Function &fn, uint64_t pc);
  std::optional<Variable> variable_at(const Function &fn, uint64_t pc, std::string_view name);
  TypeRef return_type(const Function &fn);

 private:
  // Where the variable described by `die` lives at `pc`.
  // `block_entry` is the entry of the (possibly inlined) function whose body declares it.
  Result<Place> locate(llvm::DWARFDie die, llvm::DWARFDie function, uint64_t pc, uint64_t block_entry);
  // variables_at(), or only the variable named `only` when it is not empty.
  std::vector<Variable> variables_in_scope(const Function &fn, uint64_t pc, std::string_view only);
  // The address ranges inside `scope` where `die` has a location.
  std::vector<AddressRange> available_ranges(llvm::DWARFDie die, llvm::DWARFDie scope);

  DwarfFiles &files_;
  SplitUnits &split_;
  Types &types_;
  FrameTables &frames_;
};

}  // namespace kpp::dwarf
