// A probe argument written in the kernel's own fetch-arg syntax, which perf
// probe passes through as it is (with or without DWARF):
//
//   +|-[u]OFF(FETCH)      a load at OFF from what FETCH gives (u: user memory)
//   %REG                  a register (as the definition names it: %di, %ax)
//   $stack  $stackN       the stack pointer, the Nth entry of the stack
//   $argN                 the Nth function argument, at a function's entry
//   $retval               (inside a load) the return value, at %return
//   @ADDR  @SYM[+|-OFF]   an address, or a symbol's
//
// Only the syntax is checked here; src/definition turns the pieces into the
// definition's text for the probe's kind (a uprobe has no $argN nor @SYM,
// for instance).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kpp {

struct RawFetch {
  enum class Base { Register, Stack, StackEntry, Arg, Retval, Address, Symbol };
  Base base = Base::Register;
  std::string name;      // Register (without '%'), Symbol
  uint64_t number = 0;   // StackEntry's N, Arg's N, Address
  int64_t offset = 0;    // Symbol's +|-OFF
  struct Load {
    int64_t offset = 0;
    bool user = false;   // "+u8(...)": from user memory
    bool operator==(const Load &) const = default;
  };
  std::vector<Load> loads;  // outermost first: "+8(+0(%di))" is {8, 0} on %di
  bool operator==(const RawFetch &) const = default;
};

// Whether `body` (an argument without NAME= and :TYPE) is written in the
// kernel's syntax and not as a variable: it starts with '+' or '-' (a
// load), or is $stack, $stackN, $argN, @ADDR or @SYM+OFF.
bool is_raw_fetch(std::string_view body);

// Parses `body`; the error says what is wrong, and at which byte of `body`
// (Error::span, relative to `body`).
Result<RawFetch> parse_raw_fetch(std::string_view body);

// `base_text` (the innermost fetch as the definition writes it) inside the
// loads of `fetch`: "+8(+0(%di))".
std::string wrap_raw_loads(const RawFetch &fetch, const std::string &base_text);

}  // namespace kpp
