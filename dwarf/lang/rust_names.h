// Rust function names as rustfilt and perf print them, from the two manglings
// rustc writes: legacy (Itanium-shaped, "_ZN5names5price17h021f572b3b89d46aE",
// its last element a hash) and v0 ("_RNvCs..._5names5price"). LLVM-free header.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kpp::dwarf {

struct RustName {
  std::string path;  // "names::price", "core::ptr::drop_in_place<alloc::string::String>"
  std::string hash;  // legacy mangling's "h021f572b3b89d46a", empty for v0
};

// The name behind a Rust symbol (a compiler's ".llvm.N" suffix already cut),
// nullopt when `symbol` is not a well-formed Rust symbol: a C++ symbol, a
// damaged one. Legacy escapes ($LT$, $u7b$, "..") are decoded as rustc wrote
// them; v0 is LLVM's demangler's reading.
std::optional<RustName> demangle_rust(std::string_view symbol);

// Whether `element` is the hash legacy mangling appends: 'h' and 16 hex digits.
bool is_rust_hash(std::string_view element);

}  // namespace kpp::dwarf
