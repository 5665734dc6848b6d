// The ELF image's section questions: constant bytes in read-only data,
// sections by name, whether it is a Go program.

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
