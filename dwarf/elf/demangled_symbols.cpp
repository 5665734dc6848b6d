// The function symbols' names demangled, and as -F prints them
// (demangled_symbols.h).
#include "dwarf/elf/demangled_symbols.h"

#include <algorithm>

#include "dwarf/names.h"

namespace kpp::dwarf {

namespace {

// As -F prints a function symbol ("" for a C name).
std::string printed_name(const ElfSymbol &sym) {
  std::string source(source_name_of_symbol(sym.name));
  return is_mangled(source) ? demangle_for_display(source) : std::string();
}

}  // namespace

std::optional<DemangledFunction> DemangledSymbols::of(size_t i) {
  return demangled_ ? (*demangled_)[i] : demangle_function(table_->functions()[i].name);
}

std::string DemangledSymbols::printed(size_t i) {
  return printed_ ? (*printed_)[i] : printed_name(table_->functions()[i]);
}

bool DemangledSymbols::any() {
  if (demangled_) return std::any_of(demangled_->begin(), demangled_->end(), [](const auto &d) { return d.has_value(); });
  const std::vector<ElfSymbol> &functions = table_->functions();
  return std::any_of(functions.begin(), functions.end(),
                     [](const ElfSymbol &sym) { return demangle_function(sym.name).has_value(); });
}

const std::vector<std::optional<DemangledFunction>> &DemangledSymbols::all() {
  if (!demangled_) {
    demangled_.emplace();
    demangled_->reserve(table_->functions().size());
    for (const ElfSymbol &sym : table_->functions()) demangled_->push_back(demangle_function(sym.name));
  }
  return *demangled_;
}

const std::vector<std::string> &DemangledSymbols::all_printed() {
  if (!printed_) {
    printed_.emplace();
    printed_->reserve(table_->functions().size());
    for (const ElfSymbol &sym : table_->functions()) printed_->push_back(printed_name(sym));
  }
  return *printed_;
}

}  // namespace kpp::dwarf
