// Addresses for a relocatable object (a kernel module's .ko, ET_REL): every
// section starts at 0 there, so .text, .init.text and .exit.text overlap and
// an address would name several functions at once. We lay the allocated
// sections out one after another, as the module loader does, and give both
// the symbol table and the DWARF those bases (the DWARF through LLVM's
// LoadedObjectInfo, which DWARFContext consults when it applies the debug
// relocations: an adapter in dwarf/source/dwarf_files.cpp, so that this layout, a fact of
// the ELF file, needs no LLVM DebugInfo header).
// Definitions are symbol+offset, so the bases never reach the kernel.
// LLVM keeps the section of each relocated address (the line tables'
// sequences carry it): a lookup by address names its section (section_at).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include <llvm/Object/ObjectFile.h>

namespace kpp::dwarf {

class SectionLayout {
 public:
  // The layout of `object`'s SHF_ALLOC sections; empty unless it is ET_REL.
  static std::unique_ptr<SectionLayout> of(const llvm::object::ObjectFile &object);

  // The base given to section `index` (0 for sections that are not laid out).
  uint64_t base_of(uint64_t index) const {
    auto it = bases_.find(index);
    return it == bases_.end() ? 0 : it->second;
  }
  // The index of the laid-out section holding `address`; nullopt when none
  // does (always, for a linked file: its addresses need no section).
  std::optional<uint64_t> section_at(uint64_t address) const;
  bool empty() const { return bases_.empty(); }

 private:
  std::map<uint64_t, uint64_t> bases_;  // section index -> base address
  struct Span {
    uint64_t end;  // one past the section's last byte
    uint64_t index;
  };
  std::map<uint64_t, Span> spans_;  // base address -> the section laid out there
};

}  // namespace kpp::dwarf
