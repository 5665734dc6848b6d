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
  std::string point = place.function;
  if (address != place.function_entry && place.line > 0 && !is_return)
    point += ":" + std::to_string(place.line - place.function_line);
  point += perf_file_suffix(place.file);
  if (is_return) point += "%return";
  return point;
}

}  // namespace kpp
