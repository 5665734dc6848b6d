// Whether a unit's code was built with optimization, from its unit DIE's
// DW_AT_language and DW_AT_producer: one rule for the DIEs LLVM reads and
// those read raw.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kpp::dwarf {

// gcc records its options in DW_AT_producer ("GNU C17 12.2.0 -mtune=generic
// -g -O2"); an -O other than -O0 means there is no prologue to skip, even in
// a function whose variables give no sign of it (clang records no options:
// false). Code written in assembly (glibc's string functions) has no
// prologue a compiler made either: true.
bool unit_says_optimized(std::optional<uint64_t> language, std::optional<std::string_view> producer);

}  // namespace kpp::dwarf
