// Addresses described in source terms (source_places.cpp, code_frames.cpp):
// which function's text a line-table row at an address belongs to, when
// inlining (and, under LTO, units that name other units' functions) puts
// the code of several functions and files at one address; and the frames
// of the code at an address, inlined calls expanded, for stacks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDie.h>

#include "dwarf/debug_info.h"
#include "dwarf/query/line_tables.h"
#include "dwarf/query/units_at.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

class SourcePlaces {
 public:
  SourcePlaces(UnitChecks &checks, UnitsAt &units_at, LineTables &lines)  // the parts outlive this
      : checks_(checks), units_at_(units_at), lines_(lines) {}

  // The function whose source line starts at `address`, and that line
  // (0: none of the functions there has a line there): what source_of()
  // and file_line_sites() describe an address by.
  struct AddressOwner {
    llvm::DWARFDie function;
    int line = 0;
  };
  std::optional<AddressOwner> owner_of_address(uint64_t address);
  // DebugInfo::frames_at (dwarf/debug_info.h).
  std::vector<CodeFrame> frames_at(uint64_t address);

 private:
  // The functions whose code is at `address`, outermost first: the
  // out-of-line subprogram, then each inlined copy that holds the address.
  // Empty when no subprogram covers it.
  std::vector<llvm::DWARFDie> function_chain_at(uint64_t address);
  // Which of `chain` has `line` of `file` in its source text; nullopt: none.
  std::optional<size_t> line_owner(const std::vector<llvm::DWARFDie> &chain, const std::string &file, int line);

  UnitChecks &checks_;
  UnitsAt &units_at_;
  LineTables &lines_;
};

}  // namespace kpp::dwarf
