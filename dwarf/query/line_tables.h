// The line tables of a file's units, read for the questions asked by source
// line: the rows of one function (FUNC:LINE, -L, the prologue's end), the
// addresses where a line of a file begins (FILE:LINE), the whole path of a
// source file. Which function owns such an address is LlvmDebugInfo's
// question (source_places.cpp); the rows are read here (line_tables.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/debug_info.h"
#include "dwarf/source/dwarf_files.h"
#include "dwarf/source/split_units.h"
#include "dwarf/source/unit_checks.h"

namespace kpp::dwarf {

class LineTables {
 public:
  LineTables(DwarfFiles &files, UnitChecks &checks, SplitUnits &split)  // the parts outlive this
      : files_(files), checks_(checks), split_(split) {}

  // The line-table rows of the unit that holds `fn`, restricted to its
  // ranges, by address; `same_file`: the row's file is `fn`'s.
  struct Row {
    uint64_t address;
    int line;
    bool is_stmt;
    bool prologue_end;
    bool same_file;
    bool seq_start;
  };
  std::vector<Row> rows_of(const Function &fn);
  // DebugInfo's questions of one function's rows (dwarf/debug_info.h).
  std::vector<LineSite> line_sites_in(const Function &fn, int line);
  std::vector<int> lines_with_code(const Function &fn);
  std::vector<LineSite> line_rows(const Function &fn);

  // Where `line` of a file whose path ends with `file` begins in `unit`,
  // each address with the whole path of that file. A unit without the line
  // gives its rows and its table's pages back.
  std::vector<std::pair<uint64_t, std::string>> line_starts(llvm::DWARFUnit *unit, const std::string &file, int line);
  // The whole path of the first file of `units`' line tables whose path
  // ends with `suffix`, or empty.
  std::string find_source_file(const std::vector<llvm::DWARFUnit *> &units, const std::string &suffix);

  // The index of the row of `table` that covers `address` (UnknownRowIndex:
  // none), in the section the layout put it in for a .ko.
  uint32_t row_at(const llvm::DWARFDebugLine::LineTable &table, uint64_t address);
  // The whole path of file `file_index` of `unit`'s `table`.
  static std::string file_of_row(llvm::DWARFUnit *unit, const llvm::DWARFDebugLine::LineTable *table,
                                 uint64_t file_index);

 private:
  DwarfFiles &files_;
  UnitChecks &checks_;
  SplitUnits &split_;
};

}  // namespace kpp::dwarf
