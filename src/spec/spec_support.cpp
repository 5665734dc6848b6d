#include "src/spec/spec_support.h"

#include <cctype>

namespace kpp::spec_detail {

Error spec_error(std::string_view spec, size_t begin, size_t end,
                 std::string message, std::string hint) {
  if (end <= begin) end = begin + 1;
  return Error(std::move(message), std::move(hint)).at(std::string(spec), Span{begin, end});
}

bool is_c_identifier(std::string_view s) {
  if (s.empty()) return false;
  unsigned char first = static_cast<unsigned char>(s[0]);
  if (!std::isalpha(first) && first != '_') return false;
  for (char c : s.substr(1)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && u != '_') return false;
  }
  return true;
}

}  // namespace kpp::spec_detail
