// The library values each language's debugger shows as more than their
// members (recognise(), below). Counted: the strings and sequences whose
// length is stored beside their pointer,
// not marked by a NUL: Go's string and slices, Rust's &str, String, slices
// and Vec, C++'s std::string, std::string_view and std::vector. The kernel
// reads none of them whole (it has no counted type); the definition fetches
// the pointer's bytes as a bounded array and the length beside them, and
// the decoder cuts the bytes at the length (util/value_fixup.h, y and z).
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dwarf/debug_info.h"

namespace kpp {

struct CountedLayout {
  enum class Shape { Text, Items };
  Shape shape = Shape::Text;
  std::string what;                // "a Go string", "std::vector", for messages
  std::vector<std::string> data;   // members leading to the pointer to the first byte or element
  std::vector<std::string> length; // members leading to the length, in elements (empty: see `end`)
  std::vector<std::string> end;    // members leading to the pointer past the last element (std::vector)
};

// A library value that gdb shows as one member inside it: std::array<T, N>
// as its elements (libstdc++'s one member _M_elems, a T[N]: what `p
// a._M_elems` shows), a smart pointer (std::unique_ptr, std::shared_ptr) as
// its raw pointer (get()), which '->' also follows.
struct InnerMember {
  enum class Kind { Elements, Pointer };
  Kind kind = Kind::Elements;
  int64_t offset = 0;
  dwarf::TypeRef type;
};

// An optional value (std::optional, Rust's Option): its contained value,
// and the flag or discriminant that says whether it is there. Present when
// the `flag_size` bytes at `flag_offset` equal `flag_value` (or differ from
// it, when !present_when_equal): C++'s _M_engaged is present when not 0;
// Rust's Some is present at its discriminant value, or, when None has one
// and Some is the default (a niche: Option<&T>, Option<Box<T>>, Option<bool>),
// whenever the discriminant is not None's.
struct OptionalLayout {
  enum class Flavor : uint8_t { Cxx = 1, Rust = 2 };  // as util/value_fixup.h's a<N> numbers them
  Flavor flavor = Flavor::Cxx;
  int64_t value_offset = 0;
  dwarf::TypeRef value_type;
  int64_t flag_offset = 0;
  uint64_t flag_size = 1;
  uint64_t flag_value = 0;
  bool present_when_equal = false;
};
// A library value each language's recognisers (below) know by its type: a
// counted string or sequence, an optional value (an error when it is one
// whose layout is not understood, so that no value is shown wrong), or a
// value shown as a member inside it.
using KnownObject = std::variant<CountedLayout, Result<OptionalLayout>, InnerMember>;

// What a value of `type` (a struct, typedefs looked through) is when one of
// the recognisers knows it, as each language's compiler and library lay it
// out; nullopt otherwise.
std::optional<KnownObject> recognise(dwarf::DebugInfo &debug, dwarf::TypeRef type);

}  // namespace kpp
