// The TYPE of a probe argument (`:u32`, `:string`, `:b4@2/32`, `:u8[4]`).
#pragma once

#include <string_view>

#include "util/result.h"

namespace kpp {

// Largest array a fetch-arg type may name (the kernel's MAX_ARRAY_LEN).
inline constexpr int kMaxArgArrayLen = 64;

// Checks `type` (the text after ':') against the types perf probe and the
// kernel's fetch args accept: u8/u16/u32/u64, s8..s64, x8..x64, u/s/x (size
// left to debuginfo), string, ustring, symbol, bitfield b<width>@<offset>/<container>
// and arrays ELEM[N] of sized integers or strings. Ok when it is one of them;
// otherwise an Error (no span) whose message quotes the type and names the rule.
Status check_arg_type(std::string_view type);

}  // namespace kpp
