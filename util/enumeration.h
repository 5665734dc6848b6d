// Enumeration: an enumeration type's enumerators as gdb reads them from
// DWARF, and a value of it as gdb prints it. Filled by dwarf/ (the probed
// file's DWARF), used where events are shown (src/stream/event_enums.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kpp {

struct Enumeration {
  struct Enumerator {
    uint64_t value = 0;  // masked to `size` bytes
    std::string name;    // as gdb prints it: "RED", "ns::RED", "ns::Color::Red", "crate::Color::Red"
    bool operator==(const Enumerator &) const = default;
  };
  std::vector<Enumerator> enumerators;  // in DWARF order (gdb's)
  uint64_t size = 0;                    // bytes, 1 to 8
  bool is_signed = false;  // gdb: some enumerator is negative (else unsigned, whatever DW_AT_type says)
  bool is_flag = false;    // gdb: every enumerator is 0 or a single bit, none negative
  bool operator==(const Enumeration &) const = default;
};

// `raw` (the fetched bits; only the type's size is looked at) as gdb 13
// prints a value of the type: the first enumerator equal to it; else, for a
// flag enum, the enumerators whose bits it has, then what is left
// ("(A | B)", "(A | unknown: 0x10)", "(unknown: 0x2)", 0 as "0"); else
// the number, signed only when an enumerator is negative.
std::string enumeration_text(const Enumeration &type, uint64_t raw);

}  // namespace kpp
