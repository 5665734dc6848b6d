// The function symbols' names as C++ lookups and -F need them: demangled
// into their parts (cxx_names.h; nullopt for a name that is not a C++
// function's) and as -F prints each ("" for a C name). One job, the names:
// a lookup asks for a few symbols' and demangles only those; a listing asks
// for all, made once and kept. Part of ElfImage (elf_image.h:
// demangled()); private to dwarf/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dwarf/elf/symbol_table.h"
#include "dwarf/lang/cxx_names.h"

namespace kpp::dwarf {

class DemangledSymbols {
 public:
  // The names of `table`'s functions(), which must outlive this and stay where it is.
  explicit DemangledSymbols(SymbolTable &table) : table_(&table) {}

  // For each of the table's functions(), in its order; made on first use.
  const std::vector<std::optional<DemangledFunction>> &all();
  const std::vector<std::string> &all_printed();
  // The same for functions()[i] alone (from those vectors when they are made).
  std::optional<DemangledFunction> of(size_t i);
  std::string printed(size_t i);
  // Whether any function symbol demangles, found without demangling them all.
  bool any();

 private:
  SymbolTable *table_;
  std::optional<std::vector<std::optional<DemangledFunction>>> demangled_;
  std::optional<std::vector<std::string>> printed_;
};

}  // namespace kpp::dwarf
