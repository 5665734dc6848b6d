// The ELF image's symbol questions: an address's symbol, markers' and
// functions' addresses, the anchor of a module probe, and the function
// symbols' names demangled.
#include <algorithm>
#include <set>

#include "dwarf/elf/elf_image.h"
#include "dwarf/names.h"

namespace kpp::dwarf {

std::optional<std::pair<std::string, uint64_t>> ElfImage::symbolize(uint64_t address) {
  auto sym = symbols_.symbolize(address);
  if (!sym) return std::nullopt;
  return std::make_pair(std::string(sym->first), sym->second);
}

std::map<std::string, uint64_t> ElfImage::symbol_addresses(const std::vector<std::string> &names) {
  // Each spec asks for the same markers: the symbol table (~120k entries in
  // a vmlinux) is walked once for names not asked for before.
  std::set<std::string_view> wanted;
  for (const std::string &n : names)
    if (!marker_addresses_.count(n)) wanted.insert(n);
  if (!wanted.empty()) {
    for (std::string_view n : wanted) marker_addresses_.emplace(n, std::nullopt);
    std::vector<std::string_view> asked(wanted.begin(), wanted.end());
    std::vector<std::optional<uint64_t>> addresses = symbols_.first_addresses(asked);
    for (size_t i = 0; i < asked.size(); ++i) marker_addresses_.find(asked[i])->second = addresses[i];
  }
  std::map<std::string, uint64_t> found;
  for (const std::string &n : names)
    if (auto it = marker_addresses_.find(n); it != marker_addresses_.end() && it->second) found.emplace(n, *it->second);
  return found;
}

std::vector<uint64_t> ElfImage::function_symbol_addresses(const std::string &name) {
  std::vector<uint64_t> found;
  for (const ElfSymbol &sym : symbols_.functions_named(name))
    if (sym.name == name && std::find(found.begin(), found.end(), sym.address) == found.end())
      found.push_back(sym.address);
  return found;
}

std::optional<std::pair<std::string, uint64_t>> ElfImage::unique_function_symbol_before(uint64_t address) {
  const std::vector<ElfSymbol> &functions = symbols_.functions();
  auto it = std::upper_bound(functions.begin(), functions.end(), address,
                             [](uint64_t a, const ElfSymbol &s) { return a < s.address; });
  if (it == functions.begin()) return std::nullopt;
  uint64_t section = std::prev(it)->section;
  std::map<std::string_view, int> uses;
  for (const ElfSymbol &sym : functions) ++uses[sym.name];
  while (it != functions.begin()) {
    --it;
    if (it->section != section) break;
    if (uses[it->name] == 1) return std::make_pair(std::string(it->name), address - it->address);
  }
  return std::nullopt;
}

namespace {

// As -F prints a function symbol ("" for a C name).
std::string printed_name(const ElfSymbol &sym) {
  std::string source(source_name_of_symbol(sym.name));
  return is_mangled(source) ? demangle_for_display(source) : std::string();
}

}  // namespace

std::optional<DemangledFunction> ElfImage::demangled_symbol(size_t i) {
  return demangled_symbols_ ? (*demangled_symbols_)[i] : demangle_function(symbols_.functions()[i].name);
}

std::string ElfImage::printed_symbol(size_t i) {
  return printed_symbols_ ? (*printed_symbols_)[i] : printed_name(symbols_.functions()[i]);
}

bool ElfImage::has_demangled_function() {
  if (demangled_symbols_)
    return std::any_of(demangled_symbols_->begin(), demangled_symbols_->end(), [](const auto &d) { return d.has_value(); });
  const std::vector<ElfSymbol> &functions = symbols_.functions();
  return std::any_of(functions.begin(), functions.end(),
                     [](const ElfSymbol &sym) { return demangle_function(sym.name).has_value(); });
}

const std::vector<std::optional<DemangledFunction>> &ElfImage::demangled_symbols() {
  if (!demangled_symbols_) {
    demangled_symbols_.emplace();
    demangled_symbols_->reserve(symbols_.functions().size());
    for (const ElfSymbol &sym : symbols_.functions()) demangled_symbols_->push_back(demangle_function(sym.name));
  }
  return *demangled_symbols_;
}

const std::vector<std::string> &ElfImage::printed_symbols() {
  if (!printed_symbols_) {
    printed_symbols_.emplace();
    printed_symbols_->reserve(symbols_.functions().size());
    for (const ElfSymbol &sym : symbols_.functions()) printed_symbols_->push_back(printed_name(sym));
  }
  return *printed_symbols_;
}

}  // namespace kpp::dwarf
