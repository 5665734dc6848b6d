// Which symbol table answers, and the symbol questions asked of it
// (program_symbols.h): an address's symbol, markers' and functions'
// addresses, the anchor of a module probe.
#include "dwarf/elf/program_symbols.h"

#include <algorithm>
#include <set>

namespace kpp::dwarf {

ProgramSymbols::ProgramSymbols(const llvm::object::ObjectFile &object, const SectionLayout &layout,
                               const std::string &path, std::string_view mapping)
    : layout_(&layout), table_(std::make_unique<SymbolTable>(object, layout)) {
  if (!table_->has_functions()) {
    // A stripped program keeps the symbols it exports (.dynsym).
    SymbolTable exported(object, layout, SymbolSection::Dynamic);
    if (exported.has_functions()) {
      *table_ = std::move(exported);
      dynamic_ = true;
    }
  }
  table_->read_lookups_from(path, mapping);
}

void ProgramSymbols::adopt_table_of(const llvm::object::ObjectFile &debug, const std::string &debug_path,
                                    std::string_view debug_mapping) {
  // A fully stripped program has no .symtab (at most the exported
  // .dynsym); the debug file keeps the whole table.
  if (!dynamic_ && table_->has_functions()) return;
  SymbolTable full(debug, *layout_);
  if (!full.has_functions()) return;
  *table_ = std::move(full);
  table_->read_lookups_from(debug_path, debug_mapping);
  dynamic_ = false;
}

bool ProgramSymbols::is_kernel() const {
  if (!is_kernel_) is_kernel_ = table_->contains("linux_banner");
  return *is_kernel_;
}

std::optional<std::pair<std::string, uint64_t>> ProgramSymbols::symbolize(uint64_t address) {
  auto sym = table_->symbolize(address);
  if (!sym) return std::nullopt;
  return std::make_pair(std::string(sym->first), sym->second);
}

std::map<std::string, uint64_t> ProgramSymbols::symbol_addresses(const std::vector<std::string> &names) {
  // Each spec asks for the same markers: the symbol table (~120k entries in
  // a vmlinux) is walked once for names not asked for before.
  std::set<std::string_view> wanted;
  for (const std::string &n : names)
    if (!marker_addresses_.count(n)) wanted.insert(n);
  if (!wanted.empty()) {
    for (std::string_view n : wanted) marker_addresses_.emplace(n, std::nullopt);
    std::vector<std::string_view> asked(wanted.begin(), wanted.end());
    std::vector<std::optional<uint64_t>> addresses = table_->first_addresses(asked);
    for (size_t i = 0; i < asked.size(); ++i) marker_addresses_.find(asked[i])->second = addresses[i];
  }
  std::map<std::string, uint64_t> found;
  for (const std::string &n : names)
    if (auto it = marker_addresses_.find(n); it != marker_addresses_.end() && it->second) found.emplace(n, *it->second);
  return found;
}

std::vector<uint64_t> ProgramSymbols::function_symbol_addresses(const std::string &name) {
  std::vector<uint64_t> found;
  for (const ElfSymbol &sym : table_->functions_named(name))
    if (sym.name == name && std::find(found.begin(), found.end(), sym.address) == found.end())
      found.push_back(sym.address);
  return found;
}

std::optional<std::pair<std::string, uint64_t>> ProgramSymbols::unique_function_symbol_before(uint64_t address) {
  const std::vector<ElfSymbol> &functions = table_->functions();
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

}  // namespace kpp::dwarf
