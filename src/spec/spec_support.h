// Small helpers the spec parsers share: errors that point at columns of the
// spec, identifiers and numbers. Internal to src/spec.
#pragma once

#include <charconv>
#include <cstddef>
#include <type_traits>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kpp::spec_detail {

// An Error whose source is the whole `spec` and whose span is [begin, end).
// An empty range is widened to one column so the caret has something to sit on.
Error spec_error(std::string_view spec, size_t begin, size_t end,
                 std::string message, std::string hint = {});

// True for a C identifier: [A-Za-z_][A-Za-z0-9_]*. perf's is_c_func_name().
bool is_c_identifier(std::string_view s);

// Parses all of `s` as a C-style number: decimal or 0x hexadecimal, with a
// leading '-' when T is signed. False on anything else, or on overflow.
template <class T>
bool parse_c_number(std::string_view s, T &out) {
  bool negative = std::is_signed_v<T> && !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  if (ec != std::errc() || end != s.data() + s.size()) return false;
  if (negative) out = -out;
  return true;
}

}  // namespace kpp::spec_detail
