#include "src/lookup/lazy_match.h"

#include <fnmatch.h>

#include <cctype>

namespace kpp {

namespace {
std::string without_spaces(const std::string &s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}
}  // namespace

bool lazy_match(const std::string &line, const std::string &pattern) {
  return fnmatch(without_spaces(pattern).c_str(), without_spaces(line).c_str(), 0) == 0;
}

}  // namespace kpp
