// The listing for -F: the names of the functions with code.
#include <algorithm>

#include "dwarf/names.h"
#include "dwarf/query/function_finder.h"

namespace kpp::dwarf {

std::string FunctionFinder::function_list() {
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
    bool mangled = demangle_ && is_mangled(source);
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

std::vector<std::string_view> FunctionFinder::function_names() {
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

}  // namespace kpp::dwarf
