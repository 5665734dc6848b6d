// The symbols a probe is placed by, as the resolver asks for them. One job:
// which symbol table answers (the program's .symtab, else its separate debug
// file's, else the .dynsym it exports), and the questions asked of it once
// per probe or per spec: an address's symbol, markers' addresses (asked by
// every spec: remembered), every function symbol of a name, the unique name
// a module probe is anchored on, whether the file is a vmlinux. The table
// itself (symbol_table.h) reads the entries; this chooses it and keeps the
// answers. Part of ElfImage (elf_image.h), which asks it DebugInfo's symbol
// questions; private to dwarf/.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llvm/Object/ObjectFile.h>

#include "dwarf/elf/section_layout.h"
#include "dwarf/elf/symbol_table.h"

namespace kpp::dwarf {

class ProgramSymbols {
 public:
  // The .symtab of `object` (the file at `path`, mapped at `mapping`), else
  // its .dynsym when only that has function symbols. `object` and `layout`
  // must outlive this.
  ProgramSymbols(const llvm::object::ObjectFile &object, const SectionLayout &layout, const std::string &path,
                 std::string_view mapping);

  // The table chosen; on the heap, so that it stays where it is when the
  // image moves (demangled_symbols.h points to it).
  SymbolTable &table() const { return *table_; }
  // A program stripped of its .symtab (at most the exported .dynsym left)
  // takes the whole table of its separate debug file `debug`, when that has
  // function symbols; `debug` (the file at `debug_path`, mapped at
  // `debug_mapping`) must outlive this.
  void adopt_table_of(const llvm::object::ObjectFile &debug, const std::string &debug_path,
                      std::string_view debug_mapping);

  bool is_kernel() const;  // a vmlinux: has linux_banner
  // DebugInfo's symbol questions (dwarf/elf_facts.h).
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t address);
  std::map<std::string, uint64_t> symbol_addresses(const std::vector<std::string> &names);
  std::vector<uint64_t> function_symbol_addresses(const std::string &name);
  std::optional<std::pair<std::string, uint64_t>> unique_function_symbol_before(uint64_t address);

 private:
  const SectionLayout *layout_;
  std::unique_ptr<SymbolTable> table_;
  bool dynamic_ = false;  // table_ is the .dynsym
  mutable std::optional<bool> is_kernel_;  // asked on first use
  std::map<std::string, std::optional<uint64_t>, std::less<>> marker_addresses_;  // symbol_addresses(), remembered
};

}  // namespace kpp::dwarf
