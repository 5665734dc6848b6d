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

}  // namespace kpp
