#include "src/spec/arg_type.h"

#include <charconv>
#include <string>

namespace kpp {
namespace {

// Parses all of `s` as a decimal number; false if anything else is there.
bool parse_decimal(std::string_view s, int &out) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool is_bit_width(int bits) { return bits == 8 || bits == 16 || bits == 32 || bits == 64; }

bool is_integer_prefix(char c) { return c == 'u' || c == 's' || c == 'x'; }

bool is_string_type(std::string_view t) {
  return t == "string" || t == "ustring" || t == "symbol";
}

std::string quoted(std::string_view type) { return "'" + std::string(type) + "'"; }

Status check_bitfield(std::string_view type) {
  // b<width>@<offset>/<container>
  const std::string bad = "bad bitfield type " + quoted(type) + ": ";
  size_t at = type.find('@');
  size_t slash = type.find('/');
  int width = 0, offset = 0, container = 0;
  if (at == std::string_view::npos || slash == std::string_view::npos || slash < at ||
      !parse_decimal(type.substr(1, at - 1), width) ||
      !parse_decimal(type.substr(at + 1, slash - at - 1), offset) ||
      !parse_decimal(type.substr(slash + 1), container))
    return Error(bad + "expected b<width>@<offset>/<container>");
  if (!is_bit_width(container))
    return Error(bad + "the container must be 8, 16, 32 or 64 bits");
  if (width < 1) return Error(bad + "the width must be at least 1 bit");
  if (width + offset > container)
    return Error(bad + "width + offset is " + std::to_string(width + offset) +
                 ", more than the " + std::to_string(container) + "-bit container");
  return Ok{};
}

// A scalar type: everything but arrays.
Status check_scalar(std::string_view type, std::string_view whole) {
  if (is_string_type(type)) return Ok{};
  if (type.size() == 1 && is_integer_prefix(type[0])) return Ok{};
  int bits = 0;
  if (type.size() > 1 && is_integer_prefix(type[0]) && parse_decimal(type.substr(1), bits)) {
    if (is_bit_width(bits)) return Ok{};
    return Error("unknown type " + quoted(whole) + ": integer types are 8, 16, 32 or 64 bits wide");
  }
  if (type.size() > 1 && type[0] == 'b' && type.find('@') != std::string_view::npos)
    return check_bitfield(type);
  return Error("unknown type " + quoted(whole) +
               ": expected u8/u16/u32/u64, s8..s64, x8..x64, u, s, x, string, ustring, symbol, "
               "b<width>@<offset>/<container> or TYPE[N]");
}

Status check_array(std::string_view type, size_t open) {
  const std::string bad = "bad array type " + quoted(type) + ": ";
  if (type.back() != ']') return Error(bad + "expected ELEM[N]");
  int len = 0;
  if (!parse_decimal(type.substr(open + 1, type.size() - open - 2), len) || len < 1 ||
      len > kMaxArgArrayLen)
    return Error(bad + "the length must be a number from 1 to " + std::to_string(kMaxArgArrayLen));
  std::string_view elem = type.substr(0, open);
  int bits = 0;
  bool sized_int = elem.size() > 1 && is_integer_prefix(elem[0]) &&
                   parse_decimal(elem.substr(1), bits) && is_bit_width(bits);
  if (!sized_int && elem != "string" && elem != "ustring")
    return Error(bad + "elements must be a sized integer (u8..u64, s8..s64, x8..x64) or a string");
  return Ok{};
}

}  // namespace

Status check_arg_type(std::string_view type) {
  if (type.empty()) return Error("type is missing after ':'");
  size_t open = type.find('[');
  if (open != std::string_view::npos) return check_array(type, open);
  return check_scalar(type, type);
}

}  // namespace kpp
