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

// The layout of a value of `type` (a struct, typedefs looked through) when
// it is one of the counted types above, recognised by its members as each
// language's compiler lays them out; nullopt otherwise.
std::optional<CountedLayout> counted_layout(dwarf::DebugInfo &debug, dwarf::TypeRef type);

}  // namespace kpp
