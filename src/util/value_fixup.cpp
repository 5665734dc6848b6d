#include "src/util/value_fixup.h"

#include <cctype>
#include <cstdio>

namespace kpp {

namespace {
constexpr std::string_view kSuffix = "__k";

uint64_t low_bits(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }
}  // namespace

uint64_t ValueFixup::apply(uint64_t raw) const {
  uint64_t v = raw + static_cast<uint64_t>(add);
  if (sign_bits && sign_bits < 64) {
    unsigned shift = 64 - sign_bits;
    return static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
  }
  if (zero_bits) return low_bits(v, zero_bits);
  return v;
}

std::string field_name_with_fixup(std::string_view name, const ValueFixup &fixup) {
  std::string out(name);
  if (fixup.empty()) return out;
  out += kSuffix;
  if (fixup.term) return out + (fixup.negated ? "n" : "t") + std::to_string(fixup.term);
  char buf[32];
  if (fixup.add) {
    uint64_t magnitude = fixup.add < 0 ? -static_cast<uint64_t>(fixup.add) : static_cast<uint64_t>(fixup.add);
    std::snprintf(buf, sizeof buf, "%c%llx", fixup.add < 0 ? 'm' : 'p', static_cast<unsigned long long>(magnitude));
    out += buf;
  }
  if (fixup.sign_bits) out += "s" + std::to_string(fixup.sign_bits);
  else if (fixup.zero_bits) out += "u" + std::to_string(fixup.zero_bits);
  return out;
}

NamedFixup split_fixup(std::string_view field_name) {
  NamedFixup whole{std::string(field_name), {}};
  size_t at = field_name.rfind(kSuffix);
  if (at == std::string_view::npos || at == 0) return whole;
  std::string_view ops = field_name.substr(at + kSuffix.size());
  ValueFixup fixup;
  size_t i = 0;
  auto digits = [&](bool hex_digits) {
    size_t start = i;
    while (i < ops.size() && (hex_digits ? std::isxdigit(static_cast<unsigned char>(ops[i])) &&
                                               !std::isupper(static_cast<unsigned char>(ops[i]))
                                         : std::isdigit(static_cast<unsigned char>(ops[i]))))
      ++i;
    return ops.substr(start, i - start);
  };
  if (i < ops.size() && (ops[i] == 't' || ops[i] == 'n')) {
    fixup.negated = ops[i++] == 'n';
    std::string_view d = digits(false);
    if (d.empty() || d.size() > 2 || i != ops.size() || d == "0" || d[0] == '0') return whole;
    fixup.term = static_cast<unsigned>(std::stoul(std::string(d)));
    return {std::string(field_name.substr(0, at)), fixup};
  }
  if (i < ops.size() && (ops[i] == 'p' || ops[i] == 'm')) {
    bool minus = ops[i++] == 'm';
    std::string_view h = digits(true);
    if (h.empty() || h.size() > 16) return whole;
    uint64_t magnitude = std::stoull(std::string(h), nullptr, 16);
    fixup.add = static_cast<int64_t>(minus ? -magnitude : magnitude);
  }
  if (i < ops.size() && (ops[i] == 's' || ops[i] == 'u')) {
    bool sign = ops[i++] == 's';
    std::string_view d = digits(false);
    if (d.empty() || d.size() > 2) return whole;
    unsigned bits = static_cast<unsigned>(std::stoul(std::string(d)));
    if (bits == 0 || bits > 64) return whole;
    (sign ? fixup.sign_bits : fixup.zero_bits) = bits;
  }
  if (i != ops.size() || fixup.empty()) return whole;
  return {std::string(field_name.substr(0, at)), fixup};
}

}  // namespace kpp
