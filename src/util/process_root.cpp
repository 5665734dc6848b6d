#include "src/util/process_root.h"

#include <cstdlib>

namespace kpp {

ProcessRootPath split_process_root(const std::string &path) {
  const std::string proc = "/proc/", root = "/root/";
  if (path.compare(0, proc.size(), proc) != 0) return {"", path, 0};
  size_t digits_end = path.find_first_not_of("0123456789", proc.size());
  if (digits_end == proc.size() || digits_end == std::string::npos || digits_end - proc.size() > 9 ||
      path.compare(digits_end, root.size(), root) != 0)
    return {"", path, 0};
  size_t rest = digits_end + root.size() - 1;
  return {path.substr(0, rest), path.substr(rest), static_cast<pid_t>(std::atol(path.c_str() + proc.size()))};
}

}  // namespace kpp
