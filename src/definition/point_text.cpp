#include "src/definition/point_text.h"

namespace kpp {

std::string perf_file_suffix(const std::string &path) {
  constexpr size_t max_shown = 30;
  if (path.empty()) return {};
  if (path.size() <= max_shown) return "@" + path;
  std::string tail = path.substr(path.size() - max_shown);
  size_t slash = tail.find('/');
  return "@" + (slash == std::string::npos ? tail : tail.substr(slash + 1));
}

std::string perf_point(const dwarf::SourcePlace &place, uint64_t address, bool is_return) {
  // As perf writes a place (synthesize_perf_probe_point): the function, the
  // line relative to its first line unless that is 0, "%return", "@FILE".
  std::string point = place.function;
  int relative = place.line > 0 ? place.line - place.function_line : 0;
  if (address != place.function_entry && relative != 0 && !is_return) point += ":" + std::to_string(relative);
  if (is_return) point += "%return";
  return point + perf_file_suffix(place.file);
}

}  // namespace kpp
