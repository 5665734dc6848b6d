// Listings for -F and -L: function names and a function's statement rows.
#include <set>

#include "dwarf/llvm_debug_info.h"
#include "dwarf/names.h"

namespace kpp::dwarf {

std::vector<std::string> LlvmDebugInfo::function_names() {
  std::set<std::string> names;
  for (const ElfSymbol &sym : functions_) {
    // "_ZNK6shapes3Box4areaEi.isra.0" -> "shapes::Box::area(int) const", as perf -F prints it.
    std::string name(source_name_of_symbol(sym.name));
    names.insert(open_options_.demangle ? demangle_for_display(name) : name);
  }
  return {names.begin(), names.end()};
}

std::vector<LineSite> LlvmDebugInfo::line_rows(const Function &fn) {
  std::vector<LineSite> rows;
  for (const LineRow &row : rows_of(fn))
    if (row.is_stmt && row.same_file && row.line > 0) rows.push_back({row.address, fn.decl_file, row.line});
  return rows;
}

std::string LlvmDebugInfo::find_source_file(const std::string &suffix) {
  for (llvm::DWARFUnit *unit : units_naming(suffix)) {
    const llvm::DWARFDebugLine::LineTable *table = context_->getLineTableForUnit(unit);
    if (!table) continue;
    for (size_t i = 0; i <= table->Prologue.FileNames.size(); ++i) {
      std::string path = file_of_row(unit, table, i);
      if (!path.empty() && path_ends_with(path, suffix)) return path;
    }
  }
  return {};
}

}  // namespace kpp::dwarf
