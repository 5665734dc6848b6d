// Addresses described in source terms (SourcePlaces, source_places.h):
// which function's text a line-table row at an address belongs to.
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>

#include "dwarf/names.h"
#include "dwarf/query/die_links.h"
#include "dwarf/query/source_places.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

bool is_function(const DWARFDie &die) {
  auto tag = die.getTag();
  return tag == llvm::dwarf::DW_TAG_subprogram || tag == llvm::dwarf::DW_TAG_inlined_subroutine;
}

}  // namespace

std::vector<DWARFDie> SourcePlaces::function_chain_at(uint64_t address) {
  std::vector<DWARFDie> chain;
  // LLVM gives the innermost; its parents lead out to the subprogram.
  DWARFDie die = units_at_.dies_at(address).FunctionDIE;
  constexpr size_t max_depth = 256;  // hostile DWARF: a bounded walk
  for (; die.isValid() && chain.size() < max_depth; die = die.getParent()) {
    if (!is_function(die)) continue;
    chain.push_back(die);
    if (die.getTag() == llvm::dwarf::DW_TAG_subprogram) break;
  }
  if (chain.empty() || chain.back().getTag() != llvm::dwarf::DW_TAG_subprogram) return {};
  return {chain.rbegin(), chain.rend()};
}

std::optional<size_t> SourcePlaces::line_owner(const std::vector<DWARFDie> &chain, const std::string &file, int line) {
  // C functions do not nest: of the functions of that file declared at or
  // before the line, the one declared last holds it (a helper inlined into
  // a caller of the same file is declared before or after the caller, never
  // inside it). Ties go to the innermost.
  std::optional<size_t> owner;
  uint64_t owner_line = 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    uint64_t declared = chain[i].getDeclLine();
    if (line <= 0 || declared > static_cast<uint64_t>(line)) continue;
    if (!same_source_file(source_file_of(checks_.unit_dwarf(), chain[i], llvm::dwarf::DW_AT_decl_file), file)) continue;
    if (!owner || declared >= owner_line) {
      owner = i;
      owner_line = declared;
    }
  }
  return owner;
}

std::optional<SourcePlaces::AddressOwner> SourcePlaces::owner_of_address(uint64_t address) {
  std::vector<DWARFDie> chain = function_chain_at(address);
  if (chain.empty()) return std::nullopt;
  // At the first instruction of an inlined copy, the code is the call in
  // its caller (perf's and gdb's rule): the copy and what it holds are
  // looked at only when no row there is the caller's.
  size_t outer = chain.size();
  for (size_t i = 1; i < chain.size() && outer == chain.size(); ++i)
    if (code_entry(chain[i]) == address) outer = i;
  // The rows that start at the address (one per line that starts there,
  // several functions' among them), else the row that covers it.
  DWARFUnit *unit = chain.front().getDwarfUnit()->getLinkedUnit();
  const DWARFDebugLine::LineTable *table = unit ? checks_.unit_dwarf().getLineTableForUnit(unit) : nullptr;
  std::vector<const DWARFDebugLine::Row *> rows;
  if (table) {
    uint32_t at = lines_.row_at(*table, address);
    if (at != table->UnknownRowIndex) {
      uint32_t first = at;
      while (first > 0 && table->Rows[first - 1].Address.Address == address && !table->Rows[first - 1].EndSequence) --first;
      for (uint32_t i = first; i <= at; ++i) rows.push_back(&table->Rows[i]);
    }
  }
  // The first statement row, in the table's order, whose line is in the
  // text of one of the functions: the line's code comes before the inlined
  // calls that start at the same address.
  for (size_t functions : {outer, chain.size()}) {
    std::vector<DWARFDie> candidates(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(functions));
    for (bool statements_only : {true, false})
      for (const DWARFDebugLine::Row *row : rows) {
        if (statements_only && !row->IsStmt) continue;
        int line = static_cast<int>(row->Line);
        if (auto owner = line_owner(candidates, LineTables::file_of_row(unit, table, row->File), line))
          return AddressOwner{candidates[*owner], line};
      }
  }
  return AddressOwner{chain[outer - 1], 0};
}

}  // namespace kpp::dwarf
