// The line tables read: one function's rows, the addresses where a line of
// a file begins, the paths of source files.
#include <algorithm>
#include <map>
#include <set>

#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>

#include "dwarf/names.h"
#include "dwarf/query/die_links.h"
#include "dwarf/query/line_tables.h"
#include "util/mapped_pages.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// A line's code can be split into several runs (a loop condition at the top
// and the bottom, say); perf probe puts a probe at the start of each run.
std::vector<uint64_t> run_starts(const std::vector<std::pair<uint64_t, int>> &rows, int line) {
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

}  // namespace

std::string LineTables::file_of_row(DWARFUnit *unit, const DWARFDebugLine::LineTable *table, uint64_t file_index) {
  std::string name;
  table->getFileNameByIndex(file_index, unit->getCompilationDir(),
                            DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, name);
  return name;
}

uint32_t LineTables::row_at(const DWARFDebugLine::LineTable &table, uint64_t address) {
  // In a .ko, each sequence belongs to the section its relocations name
  // (LLVM keeps it; sequences of .text and .init.text overlap before the
  // layout moves them apart): a lookup without one finds none of them.
  std::optional<uint64_t> section = files_.image().layout().section_at(address);
  return table.lookupAddress({address, section.value_or(object::SectionedAddress::UndefSection)});
}

std::vector<LineTables::Row> LineTables::rows_of(const Function &fn) {
  std::vector<Row> rows;
  DWARFDie die = split_.die_at(fn.die_offset);
  if (!die.isValid()) return rows;
  DWARFUnit *unit = die.getDwarfUnit()->getLinkedUnit();  // a split unit's lines are its skeleton's
  const DWARFDebugLine::LineTable *table = checks_.unit_dwarf().getLineTableForUnit(unit);
  if (!table) return rows;
  std::string decl_file = source_file_of(checks_.unit_dwarf(), die, llvm::dwarf::DW_AT_decl_file);
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
  std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.address < b.address; });
  return rows;
}

std::vector<LineSite> LineTables::line_sites_in(const Function &fn, int line) {
  std::vector<std::pair<uint64_t, int>> stmt_rows;
  for (const Row &row : rows_of(fn))
    if (row.is_stmt) stmt_rows.emplace_back(row.address, row.same_file ? row.line : -1);
  std::vector<LineSite> sites;
  for (uint64_t address : run_starts(stmt_rows, line)) sites.push_back({address, fn.decl_file, line});
  return sites;
}

std::vector<int> LineTables::lines_with_code(const Function &fn) {
  std::set<int> lines;
  for (const Row &row : rows_of(fn))
    if (row.is_stmt && row.same_file && row.line > 0) lines.insert(row.line);
  return {lines.begin(), lines.end()};
}

std::vector<LineSite> LineTables::line_rows(const Function &fn) {
  std::vector<LineSite> rows;
  for (const Row &row : rows_of(fn))
    if (row.is_stmt && row.same_file && row.line > 0) rows.push_back({row.address, fn.decl_file, row.line});
  return rows;
}

std::vector<std::pair<uint64_t, std::string>> LineTables::line_starts(DWARFUnit *unit, const std::string &file, int line) {
  const DWARFDebugLine::LineTable *table = checks_.unit_dwarf().getLineTableForUnit(unit);
  if (!table) return {};
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
    checks_.unit_dwarf().clearLineTableForUnit(unit);
  }
  std::vector<std::pair<uint64_t, std::string>> found;
  for (uint64_t address : starts) found.emplace_back(address, path_at[address]);
  return found;
}

std::string LineTables::find_source_file(const std::vector<DWARFUnit *> &units, const std::string &suffix) {
  for (DWARFUnit *unit : units) {
    const DWARFDebugLine::LineTable *table = checks_.unit_dwarf().getLineTableForUnit(unit);
    if (!table) continue;
    for (size_t i = 0; i <= table->Prologue.FileNames.size(); ++i) {
      std::string path = file_of_row(unit, table, i);
      if (!path.empty() && path_ends_with(path, suffix)) return path;
    }
  }
  return {};
}

}  // namespace kpp::dwarf
