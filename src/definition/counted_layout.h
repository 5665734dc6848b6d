// The strings and sequences whose length is stored beside their pointer,
// not marked by a NUL: Go's string and slices, Rust's &str, String, slices
// and Vec, C++'s std::string, std::string_view and std::vector. The kernel
// reads none of them whole (it has no counted type); the definition fetches
// the pointer's bytes as a bounded array and the length beside them, and
// the decoder cuts the bytes at the length (util/value_fixup.h, y and z).
#pragma once

#include <optional>
#include <string>
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

// A smart pointer (std::unique_ptr, std::shared_ptr): where in it the raw
// pointer is, and its type, which '->' follows and which is its value.
struct SmartPointer {
  int64_t offset = 0;
  dwarf::TypeRef pointer;
};
std::optional<SmartPointer> smart_pointer(dwarf::DebugInfo &debug, dwarf::TypeRef type);

// A fixed-size array wrapped in a struct of its own (libstdc++'s
// std::array<T, N>: its one member _M_elems, a T[N]): that member, which is
// the value as gdb's `p a._M_elems` shows it. nullopt for any other type
// (std::array<T, 0>'s member is an empty struct, not an array).
std::optional<dwarf::Member> wrapped_array(dwarf::DebugInfo &debug, dwarf::TypeRef type);

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
// The layout when `type` is an optional value; an error when it is one
// whose layout is not understood (so that no value is shown wrong); nullopt
// when it is none.
std::optional<Result<OptionalLayout>> optional_layout(dwarf::DebugInfo &debug, dwarf::TypeRef type);

// The layout of a value of `type` (a struct, typedefs looked through) when
// it is one of the counted types above, recognised by its members as each
// language's compiler lays them out; nullopt otherwise.
std::optional<CountedLayout> counted_layout(dwarf::DebugInfo &debug, dwarf::TypeRef type);

}  // namespace kpp
