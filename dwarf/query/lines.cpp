// Source lines to addresses, from the line table of the unit that holds a function.
#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>

#include "dwarf/names.h"
#include "dwarf/query/die_links.h"
#include "dwarf/query/llvm_debug_info.h"
#include "dwarf/raw/raw_line_header.h"
#include "dwarf/raw/raw_unit.h"

namespace kpp::dwarf {

using namespace llvm;

std::string LlvmDebugInfo::file_of_row(DWARFUnit *unit, const DWARFDebugLine::LineTable *table,
                                       uint64_t file_index) {
  std::string name;
  table->getFileNameByIndex(file_index, unit->getCompilationDir(),
                            DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, name);
  return name;
}

uint32_t LlvmDebugInfo::row_at(const DWARFDebugLine::LineTable &table, uint64_t address) {
  // In a .ko, each sequence belongs to the section its relocations name
  // (LLVM keeps it; sequences of .text and .init.text overlap before the
  // layout moves them apart): a lookup without one finds none of them.
  std::optional<uint64_t> section = image_.layout().section_at(address);
  return table.lookupAddress({address, section.value_or(object::SectionedAddress::UndefSection)});
}

std::vector<LlvmDebugInfo::LineRow> LlvmDebugInfo::rows_of(const Function &fn) {
  std::vector<LineRow> rows;
  DWARFDie die = die_at(fn.die_offset);
  if (!die.isValid()) return rows;
  DWARFUnit *unit = die.getDwarfUnit()->getLinkedUnit();  // a split unit's lines are its skeleton's
  const DWARFDebugLine::LineTable *table = unit_dwarf().getLineTableForUnit(unit);
  if (!table) return rows;
  std::string decl_file = source_file_of(unit_dwarf(), die, llvm::dwarf::DW_AT_decl_file);
  std::map<uint64_t, bool> file_matches;  // file index -> same file as the function
  auto in_function = [&](uint64_t a) {
    return std::any_of(fn.ranges.begin(), fn.ranges.end(), [a](const AddressRange &r) { return r.contains(a); });
  };
  bool seq_start = true;
  for (const DWARFDebugLine::Row &row : table->Rows) {
    if (row.EndSequence) {
      seq_start = true;
      continue;
    }
    bool starts = seq_start;
    seq_start = false;
    if (!in_function(row.Address.Address)) continue;
    auto [it, fresh] = file_matches.try_emplace(row.File, false);
    if (fresh) it->second = same_source_file(file_of_row(unit, table, row.File), decl_file);
    rows.push_back({row.Address.Address, static_cast<int>(row.Line), row.IsStmt != 0, row.PrologueEnd != 0, it->second, starts});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const LineRow &a, const LineRow &b) { return a.address < b.address; });
  return rows;
}

// A line's code can be split into several runs (a loop condition at the top
// and the bottom, say); perf probe puts a probe at the start of each run.
static std::vector<uint64_t> run_starts(const std::vector<std::pair<uint64_t, int>> &rows, int line) {
  std::vector<uint64_t> starts;
  int previous = -1;
  for (const auto &[address, row_line] : rows) {
    if (row_line == line && previous != line) starts.push_back(address);
    previous = row_line;
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

std::vector<LineSite> LlvmDebugInfo::line_sites_in(const Function &fn, int line) {
  std::vector<std::pair<uint64_t, int>> stmt_rows;
  for (const LineRow &row : rows_of(fn))
    if (row.is_stmt) stmt_rows.emplace_back(row.address, row.same_file ? row.line : -1);
  std::vector<LineSite> sites;
  for (uint64_t address : run_starts(stmt_rows, line)) sites.push_back({address, fn.decl_file, line});
  return sites;
}

std::vector<int> LlvmDebugInfo::lines_with_code(const Function &fn) {
  std::set<int> lines;
  for (const LineRow &row : rows_of(fn))
    if (row.is_stmt && row.same_file && row.line > 0) lines.insert(row.line);
  return {lines.begin(), lines.end()};
}

std::vector<DWARFUnit *> LlvmDebugInfo::units_naming(const std::string &file, bool search) {
  std::vector<DWARFUnit *> units;
  auto answer = function_index_.units_naming(file, search);
  if (!answer) {
    for (const auto &unit : unit_dwarf().compile_units()) units.push_back(unit.get());
    return units;
  }
  for (uint64_t offset : answer->offsets) {
    DWARFUnit *unit = unit_dwarf().getCompileUnitForOffset(offset);
    if (unit && unit->getOffset() == offset) units.push_back(unit);
    else if (answer->cached) {  // a cached index listed no unit there: it is made again, and asked again
      function_index_.distrust("no unit starts at " + std::to_string(offset) + ", which it lists for '" + file + "'");
      return units_naming(file);
    }
  }
  return units;
}

std::vector<std::pair<LineSite, Function>> LlvmDebugInfo::file_line_sites(const std::string &file, int line) {
  // A cached index's units that give nothing: the byte search confirms (a
  // crafted index could leave a unit out; issue 12 item 3), on misses only.
  auto sites = file_line_sites_in(units_naming(file), file, line);
  if (sites.empty() && index_source() == IndexSource::Cache) sites = file_line_sites_in(units_naming(file, /*search=*/true), file, line);
  return sites;
}

std::vector<std::pair<LineSite, Function>> LlvmDebugInfo::file_line_sites_in(const std::vector<DWARFUnit *> &units,
                                                                            const std::string &file, int line) {
  std::vector<std::pair<LineSite, Function>> result;
  for (DWARFUnit *unit : units) {
    const DWARFDebugLine::LineTable *table = unit_dwarf().getLineTableForUnit(unit);
    if (!table) continue;
    std::map<uint64_t, std::string> matching;  // file index -> path, for files that end with `file`
    std::vector<std::pair<uint64_t, int>> stmt_rows;
    std::map<uint64_t, std::string> path_at;  // address -> the path of the file whose `line` starts there
    for (const DWARFDebugLine::Row &row : table->Rows) {
      if (row.EndSequence || !row.IsStmt) {
        if (row.EndSequence) stmt_rows.emplace_back(row.Address.Address, -1);
        continue;
      }
      auto it = matching.find(row.File);
      if (it == matching.end()) {
        std::string path = file_of_row(unit, table, row.File);
        it = matching.emplace(row.File, path_ends_with(path, file) ? path : std::string()).first;
      }
      stmt_rows.emplace_back(row.Address.Address, it->second.empty() ? -1 : static_cast<int>(row.Line));
      if (!it->second.empty() && static_cast<int>(row.Line) == line) path_at.try_emplace(row.Address.Address, it->second);
    }
    std::vector<uint64_t> starts = run_starts(stmt_rows, line);
    // A unit without the line gives its rows and its table's pages back: a
    // header's lines are looked for in hundreds of units, and they add up.
    if (starts.empty()) {
      if (auto offset = llvm::dwarf::toSectionOffset(unit->getUnitDIE().find(llvm::dwarf::DW_AT_stmt_list))) {
        StringRef section = files_.context().getDWARFObj().getLineSection().Data;
        uint64_t size = table->Prologue.TotalLength + table->Prologue.sizeofTotalLength();
        if (*offset < section.size())
          drop_pages(files_.dwarf_mapping(), std::string_view(section.data() + *offset, std::min<uint64_t>(size, section.size() - *offset)));
      }
      unit_dwarf().clearLineTableForUnit(unit);
    }
    for (uint64_t address : starts) {
      // The function -l will name there: the one whose text has the line,
      // an inlined copy when its code was inlined (under LTO, often into
      // another file's function), or the caller at a copy's first instruction.
      auto owner = owner_of_address(address);
      auto fn = owner ? function_from_die(owner->function) : std::nullopt;
      if (!fn) continue;
      result.push_back({LineSite{address, path_at[address], line}, std::move(*fn)});
    }
  }
  return result;
}

}  // namespace kpp::dwarf
