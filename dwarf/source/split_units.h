// Split DWARF (-gsplit-dwarf) (private to dwarf/; how, in split_units.cpp):
// the split units (.dwo files, or a .dwp's) of the program's skeleton units,
// loaded on first use, the handles that name their DIEs (split_handle.h),
// and what is missing when they are not found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/raw/die_scan.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

class SplitUnits {
 public:
  // `program` (the program's path: a .dwp and .dwo files are looked for
  // beside it) and `checks` outlive this.
  SplitUnits(const std::string &program, UnitChecks &checks) : program_(program), checks_(checks) {}

  // The split unit of the skeleton at `index` among the compile units,
  // loaded on first use; null when the unit is not a skeleton or its split
  // unit is nowhere to be found.
  llvm::DWARFUnit *split_unit(uint64_t index);
  std::optional<uint64_t> skeleton_index(const llvm::DWARFUnit *unit);
  // The DIE a handle names, and a DIE's handle (split_handle.h).
  llvm::DWARFDie die_at(uint64_t handle);
  uint64_t handle_of(llvm::DWARFDie die);
  // Every split unit's bytes, for the name index; `skeletons` counts the skeleton units.
  std::vector<SplitUnitBytes> unit_bytes(size_t &skeletons);
  // Where the split units came from, for -v ("" without skeletons); what
  // is missing, and where it was looked for ("" when nothing is).
  std::string source();
  std::string missing();

 private:
  const std::string &program_;
  UnitChecks &checks_;
  std::unordered_map<uint64_t, llvm::DWARFUnit *> split_units_;  // by skeleton index; null: none found
  std::unordered_map<std::string, std::string> files_refused_;  // places split units may be read from: why not ("": may)
  std::unordered_map<const llvm::DWARFUnit *, uint64_t> skeleton_indexes_;  // every compile unit's index
};

}  // namespace kpp::dwarf
