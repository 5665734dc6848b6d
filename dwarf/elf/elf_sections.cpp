// The ELF image's section questions: constant bytes in read-only data,
// GOT slots of data symbols, sections by name.
#include <algorithm>

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>

#include "dwarf/elf/elf_image.h"

namespace kpp::dwarf {

using namespace llvm;

std::optional<uint64_t> ElfImage::find_read_only_bytes(std::string_view bytes) const {
  if (bytes.empty()) return std::nullopt;
  // The program's own sections: a separate debug file has no section data.
  for (const object::SectionRef &section : binary_.getBinary()->sections()) {
    object::ELFSectionRef ref(section);
    uint64_t flags = ref.getFlags();
    if (!(flags & ELF::SHF_ALLOC) || (flags & (ELF::SHF_WRITE | ELF::SHF_EXECINSTR)) || ref.getType() != ELF::SHT_PROGBITS)
      continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      continue;
    }
    size_t at = std::string_view(contents->data(), contents->size()).find(bytes);
    if (at != std::string_view::npos) return section.getAddress() + at;
  }
  return std::nullopt;
}

std::optional<DebugInfo::GotSlot> ElfImage::got_slot_of(uint64_t address) {
  if (!got_entries_) {
    got_entries_.emplace();
    // GLOB_DAT relocations fill a GOT slot with a symbol's run-time address.
    const auto *elf = dyn_cast<object::ELFObjectFileBase>(binary_.getBinary());
    uint64_t glob_dat = machine_ == ELF::EM_X86_64 ? ELF::R_X86_64_GLOB_DAT
                        : machine_ == ELF::EM_AARCH64 ? ELF::R_AARCH64_GLOB_DAT
                                                      : 0;
    if (elf && glob_dat) {
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
          got_entries_->push_back({*value, symbol.getSize(), reloc.getOffset()});
        }
      }
      std::sort(got_entries_->begin(), got_entries_->end(),
                [](const GotEntry &a, const GotEntry &b) { return a.start < b.start; });
    }
  }
  auto it = std::upper_bound(got_entries_->begin(), got_entries_->end(), address,
                             [](uint64_t a, const GotEntry &e) { return a < e.start; });
  if (it == got_entries_->begin()) return std::nullopt;
  --it;
  if (address >= it->start + std::max<uint64_t>(it->size, 1)) return std::nullopt;
  return DebugInfo::GotSlot{it->slot, address - it->start};
}

std::optional<ElfImage::SectionBytes> ElfImage::section_named(std::string_view name) const {
  for (const object::SectionRef &section : binary_.getBinary()->sections()) {
    auto section_name = section.getName();
    if (!section_name) {
      consumeError(section_name.takeError());
      continue;
    }
    if (std::string_view(section_name->data(), section_name->size()) != name || section.isVirtual()) continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      return std::nullopt;
    }
    return SectionBytes{section.getAddress(), std::string_view(contents->data(), contents->size())};
  }
  return std::nullopt;
}

bool ElfImage::is_go_program() {
  if (!is_go_program_) is_go_program_ = section_named(".gopclntab").has_value() || section_named(".go.buildinfo").has_value();
  return *is_go_program_;
}

}  // namespace kpp::dwarf
