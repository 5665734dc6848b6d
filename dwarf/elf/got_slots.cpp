// The GOT slots of data symbols, from the GLOB_DAT relocations (got_slots.h).
#include "dwarf/elf/got_slots.h"

#include <algorithm>

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>

namespace kpp::dwarf {

using namespace llvm;

std::vector<GotSlots::Entry> GotSlots::read() const {
  std::vector<Entry> entries;
  // GLOB_DAT relocations fill a GOT slot with a symbol's run-time address.
  const auto *elf = dyn_cast<object::ELFObjectFileBase>(object_);
  uint16_t machine = elf ? elf->getEMachine() : 0;
  uint64_t glob_dat = machine == ELF::EM_X86_64    ? ELF::R_X86_64_GLOB_DAT
                      : machine == ELF::EM_AARCH64 ? ELF::R_AARCH64_GLOB_DAT
                                                   : 0;
  if (!elf || !glob_dat) return entries;
  for (const object::SectionRef &section : elf->dynamic_relocation_sections()) {
    for (const object::RelocationRef &reloc : section.relocations()) {
      if (reloc.getType() != glob_dat) continue;
      object::symbol_iterator sym = reloc.getSymbol();
      if (sym == elf->symbol_end()) continue;
      object::ELFSymbolRef symbol(*sym);
      auto type = symbol.getType();
      if (!type) {
        consumeError(type.takeError());
        continue;
      }
      auto value = symbol.getValue();
      if (!value) {
        consumeError(value.takeError());
        continue;
      }
      if (*type != object::SymbolRef::ST_Data || *value == 0) continue;
      entries.push_back({*value, symbol.getSize(), reloc.getOffset()});
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.start < b.start; });
  return entries;
}

std::optional<ElfFacts::GotSlot> GotSlots::slot_of(uint64_t address) {
  if (!entries_) entries_ = read();
  auto it = std::upper_bound(entries_->begin(), entries_->end(), address,
                             [](uint64_t a, const Entry &e) { return a < e.start; });
  if (it == entries_->begin()) return std::nullopt;
  --it;
  if (address >= it->start + std::max<uint64_t>(it->size, 1)) return std::nullopt;
  return ElfFacts::GotSlot{it->slot, address - it->start};
}

}  // namespace kpp::dwarf
