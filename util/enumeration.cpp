#include "util/enumeration.h"

#include "util/strings.h"

namespace kpp {

namespace {

// gdb's decomposition of a flag enum's value (valprint.c): each enumerator
// whose bit the value has, in order, its bit taken away; then the rest.
std::string flag_text(const Enumeration &type, uint64_t value) {
  if (value == 0) return "0";
  std::string out = "(";
  bool first = true;
  for (const Enumeration::Enumerator &e : type.enumerators) {
    if ((value & e.value) == 0) continue;
    out += first ? "" : " | ";
    out += e.name;
    value &= ~e.value;
    first = false;
  }
  if (value) out += (first ? "unknown: " : " | unknown: ") + hex(value);
  return out + ")";
}

}  // namespace

std::string enumeration_text(const Enumeration &type, uint64_t raw) {
  unsigned bits = type.size >= 8 || type.size == 0 ? 64 : static_cast<unsigned>(type.size * 8);
  uint64_t value = bits == 64 ? raw : raw & ((uint64_t{1} << bits) - 1);
  for (const Enumeration::Enumerator &e : type.enumerators)
    if (e.value == value) return e.name;
  if (type.is_flag) return flag_text(type, value);
  if (!type.is_signed) return std::to_string(value);
  unsigned shift = 64 - bits;
  return std::to_string(static_cast<int64_t>(value << shift) >> shift);
}

}  // namespace kpp
