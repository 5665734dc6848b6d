// Go's own function table (.gopclntab), which every Go program keeps, even
// one linked with -ldflags='-s -w' (no symbol table, no DWARF): function
// names and entry addresses as Go's tools (go tool nm, debug/gosym) and its
// runtime's tracebacks read them. Layout of Go 1.18 and later (magic
// 0xfffffff0, 0xfffffff1 since 1.20); older tables are refused. The bytes
// are hostile input: every offset is bounds-checked. LLVM-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/util/result.h"

namespace kpp::dwarf {

struct GoFunction {
  std::string_view name;  // into the table's bytes
  uint64_t entry = 0;     // link-time address
  uint64_t end = 0;       // exclusive: the next function's entry
};

class GoFunctionTable {
 public:
  // The table in `bytes` (the .gopclntab section's contents, which must
  // outlive it). `text_start` is the start of the code the entries count
  // from (the .text section), used when the header does not give it (Go
  // 1.20 on). Errors name what is wrong and where.
  static Result<GoFunctionTable> parse(std::string_view bytes, uint64_t text_start);

  // Sorted by entry.
  const std::vector<GoFunction> &functions() const { return functions_; }
  // Every function named `name` (Go's names are unique; a damaged table may repeat one).
  std::vector<GoFunction> named(std::string_view name) const;
  // The function whose code holds `address`, if any.
  std::optional<GoFunction> at(uint64_t address) const;

 private:
  std::vector<GoFunction> functions_;
};

}  // namespace kpp::dwarf
