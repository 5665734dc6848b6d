// Listings for -F and -L: function names and a function's statement rows.
#include <algorithm>

#include "dwarf/names.h"
#include "dwarf/query/llvm_debug_info.h"

namespace kpp::dwarf {

std::string LlvmDebugInfo::function_list() {
  // Views sorted and made unique first: a vmlinux has ~60k function symbols.
  std::vector<std::string_view> sources = image_.symbols().function_source_names();
  if (const GoFunctionTable *table = go_.table())  // a Go program linked without symbols
    for (const GoFunction &go : table->functions()) sources.push_back(go.name);
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  std::vector<std::string> names;
  names.reserve(sources.size());
  bool demangled = false;
  for (std::string_view source : sources) {
    // "_ZNK6shapes3Box4areaEi.isra.0" -> "shapes::Box::area(int) const", Rust's
    // "_ZN5names5price17h021f572b3b89d46aE" -> "names::price", as perf -F prints them.
    bool mangled = open_options_.demangle && is_mangled(source);
    names.push_back(mangled ? demangle_for_display(std::string(source)) : std::string(source));
    demangled |= mangled;
  }
  if (demangled) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  std::string text;
  for (const std::string &name : names) text += name + '\n';
  return text;
}

std::vector<std::string_view> LlvmDebugInfo::function_names() {
  // Not cached: a cached list could only be checked by making it again
  // (demangling is most of its cost), and a crafted one would be another
  // answer (issue 12 item 3).
  if (!function_list_) function_list_ = function_list();
  std::vector<std::string_view> names;
  std::string_view text = *function_list_;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    names.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return names;
}

std::vector<LineSite> LlvmDebugInfo::line_rows(const Function &fn) {
  std::vector<LineSite> rows;
  for (const LineRow &row : rows_of(fn))
    if (row.is_stmt && row.same_file && row.line > 0) rows.push_back({row.address, fn.decl_file, row.line});
  return rows;
}

std::string LlvmDebugInfo::find_source_file(const std::string &suffix) {
  for (llvm::DWARFUnit *unit : units_naming(suffix)) {
    const llvm::DWARFDebugLine::LineTable *table = unit_dwarf().getLineTableForUnit(unit);
    if (!table) continue;
    for (size_t i = 0; i <= table->Prologue.FileNames.size(); ++i) {
      std::string path = file_of_row(unit, table, i);
      if (!path.empty() && path_ends_with(path, suffix)) return path;
    }
  }
  return {};
}

}  // namespace kpp::dwarf
