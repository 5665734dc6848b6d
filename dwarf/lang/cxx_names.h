// C++ function names as users write them (`ns::Cls::method`, `ns::max<int>`,
// `twice(long)`), matched against the names the compiler recorded: the
// demangled linkage name of a symbol or a DIE. LLVM-free header.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kpp::dwarf {

// A requested name split at its top-level `::` (not those inside <...> or
// (...)); whitespace is dropped everywhere, so `max<int, long>` and
// `max<int,long>` are one name.
struct CxxQuery {
  std::vector<std::string> scopes;  // "ns", "Cls"
  std::string base;                 // "method", "max<int>"
  std::string params;               // "(int)" when a parameter list was given (a trailing "const" dropped)
  std::string printed;              // the whole name as typed, printed_key()'s form
  std::string rust_hash;            // "h021f572b3b89d46a" when the name ended with legacy Rust's hash
};

// Whether `name` asks for the C++ matcher: it has `::`, template arguments
// or a parameter list. A plain identifier goes the C way first.
bool is_cxx_query(std::string_view name);
// Whether `name` is a path, "names::price" or "ns::Cls::f": a top-level `::`
// (not in <...> or (...)), and no operator (gcc names a conversion operator
// "operator std::string"). No compiler gives a function's DIE such a name
// (DW_AT_name is the last component), so a lookup by DIE name as it is,
// a text search of all .debug_info without the index, is skipped for it.
bool is_scoped_path(std::string_view name);
CxxQuery parse_cxx_query(std::string_view name);

// A demangled function name: "shapes::Box::area" and "(int)", whitespace
// dropped. Clone suffixes (".isra.0", ".cold") are ignored. Rust symbols
// (legacy and v0) too: "names::largest<i32>" (the turbofish's "::" dropped,
// as C++ writes template arguments), no parameters, legacy's hash apart.
struct DemangledFunction {
  std::string qualified;
  std::string params;
  std::string rust_hash;
};
std::optional<DemangledFunction> demangle_function(std::string_view mangled);

// Whether `symbol` is mangled: Itanium C++ or legacy Rust ("_Z"), Rust v0 ("_R").
bool is_mangled(std::string_view symbol);

// The demangled text a person reads ("shapes::Box::area(int) const", Rust's
// "names::price" without legacy's hash, as rustfilt and perf print it), or
// `symbol` itself when it is not a mangled name. A clone suffix
// stays visible: "f(int) [clone .isra.0]" reads as perf and c++filt print it.
std::string demangle_for_display(const std::string &symbol);

// Whether `have` is what `query` asks for: the query's scopes and base are
// the last components of the qualified name (so `Box::area` finds
// `shapes::Box::area`); a base without template arguments also matches
// every instance (`biggest` finds `biggest<int>` and `biggest<double>`);
// a parameter list, when given, must be equal; a Rust hash too.
bool cxx_name_matches(const CxxQuery &query, const DemangledFunction &have);

// A word that every mangled symbol whose name `query` matches (by
// cxx_name_matches or printed_name_matches) has as it is: the base's
// identifier ("price" of "names::price", "max" of "max<int>"), which
// Itanium and both Rust manglings write verbatim; nullopt when it may be
// written otherwise (an operator, a destructor, a constructor of a class
// the Itanium ABI abbreviates: std::allocator is "Sa"). Symbols without it
// need no demangling to be told apart.
std::optional<std::string> verbatim_word(const CxxQuery &query);

// A name as -F prints it, compared whole: without white space and quotes
// (the point's parser takes quotes off: 'lambda' is typed back as lambda).
std::string printed_key(std::string_view name);

// Whether `key` (printed_key of a query) is `display` (a demangled name as
// -F prints it) or its end after a space: a return type, "auto" before a
// local class's scope, is no part of the name typed. This finds what the
// scoped matcher cannot: members of local classes and lambdas
// ("f(int)::'lambda'()::operator()() const"), thunks, "[abi:cxx11]" tags.
bool printed_name_matches(std::string_view key, std::string_view display);

}  // namespace kpp::dwarf
