// The Go questions: which functions are Go code, where they return, where
// Go's register ABI puts their results (go_functions.cpp), and, for a Go
// program stripped of its symbols and DWARF (-ldflags='-s -w'), its
// functions as Go's own table names them (go_table.cpp, lang/go_pclntab.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDie.h>

#include "dwarf/debug_info.h"
#include "dwarf/lang/go_pclntab.h"
#include "dwarf/query/types.h"
#include "dwarf/query/units_at.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"

namespace kpp::dwarf {

class GoCode {
 public:
  // The parts outlive this.
  GoCode(DwarfFiles &files, SplitUnits &split, UnitsAt &units_at, Types &types)
      : files_(files), split_(split), units_at_(units_at), types_(types) {}

  // DebugInfo's Go questions (see dwarf/debug_info.h).
  bool is_go_function(const Function &fn);
  Result<std::vector<uint64_t>> return_instructions(const Function &fn);
  std::vector<Variable> go_results(const Function &fn);

  // A Go program without function symbols: Go's own function table, read on
  // first use; null for other files, or when the table is damaged.
  const GoFunctionTable *table();
  // The symbol that contains `address` and the offset into it: from the
  // symbol table, else from Go's table.
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t address);

 private:
  std::optional<Place> result_place(llvm::DWARFDie die, size_t &next_int, size_t &next_float, std::string &why);

  DwarfFiles &files_;
  SplitUnits &split_;
  UnitsAt &units_at_;
  Types &types_;
  std::optional<GoFunctionTable> table_;
  bool table_read_ = false;
};

}  // namespace kpp::dwarf
