// The ELF image's section questions: constant bytes in read-only data,
// GOT slots of data symbols, and instruction starts in the code.
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

std::optional<ElfFacts::GotSlot> ElfImage::got_slot_of(uint64_t address) {
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
  return ElfFacts::GotSlot{it->slot, address - it->start};
}

InstructionDecoder *ElfImage::decoder() {
  if (!decoder_made_) {
    decoder_ = InstructionDecoder::for_machine(machine_);
    decoder_made_ = true;
  }
  return decoder_.get();
}

bool ElfImage::decodes_instructions() { return decoder() != nullptr; }

std::optional<bool> ElfImage::starts_instruction(uint64_t from, uint64_t end, uint64_t address) {
  if (!decoder()) return std::nullopt;
  auto code = code_bytes(from, end);
  if (!code) return std::nullopt;
  return decoder()->starts_instruction(*code, from, address);
}

std::optional<InstructionDecoder::Exits> ElfImage::exits_of(uint64_t begin, uint64_t end) {
  if (!decoder() || end <= begin) return std::nullopt;
  auto code = code_bytes(begin, end);
  if (!code) return std::nullopt;
  return decoder()->exits(*code, begin);
}

std::optional<uint64_t> ElfImage::after_go_stack_check(uint64_t begin, uint64_t end) {
  if (!decoder() || end <= begin) return std::nullopt;
  auto code = code_bytes(begin, end);
  if (!code) return std::nullopt;
  return decoder()->after_go_stack_check(*code, begin);
}

bool ElfImage::returns_at(uint64_t address) {
  // One instruction is at most 15 bytes; fewer where the code section ends.
  for (uint64_t size = 15; size > 0; --size)
    if (std::optional<InstructionDecoder::Exits> exits = exits_of(address, address + size))
      return !exits->returns.empty() && exits->returns.front() == address;
  return false;
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

std::optional<std::string_view> ElfImage::code_bytes(uint64_t begin, uint64_t end) const {
  for (const object::SectionRef &section : binary_.getBinary()->sections()) {
    if (section.isVirtual() || !section.isText()) continue;
    uint64_t base = layout_->empty() ? section.getAddress() : layout_->base_of(section.getIndex());
    if (begin < base || end > base + section.getSize() || (!layout_->empty() && base == 0)) continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      return std::nullopt;
    }
    if (contents->size() < end - base) return std::nullopt;
    return std::string_view(contents->data() + (begin - base), end - begin);
  }
  return std::nullopt;
}

}  // namespace kpp::dwarf
