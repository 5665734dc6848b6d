#include "dwarf/elf/section_layout.h"

#include <iterator>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>

namespace kpp::dwarf {

std::unique_ptr<SectionLayout> SectionLayout::of(const llvm::object::ObjectFile &object) {
  auto layout = std::make_unique<SectionLayout>();
  const auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(&object);
  if (!elf || elf->getEType() != llvm::ELF::ET_REL) return layout;
  // Start above 0: a symbol at address 0 reads as "no address" elsewhere.
  uint64_t next = 0x10000;
  for (const llvm::object::ELFSectionRef section : elf->sections()) {
    if (!(section.getFlags() & llvm::ELF::SHF_ALLOC) || section.getSize() == 0) continue;
    uint64_t align = std::max<uint64_t>(section.getAlignment().value(), 16);
    next = (next + align - 1) / align * align;
    layout->bases_[section.getIndex()] = next;
    layout->spans_[next] = Span{next + section.getSize(), section.getIndex()};
    next += section.getSize();
  }
  return layout;
}

std::optional<uint64_t> SectionLayout::section_at(uint64_t address) const {
  auto after = spans_.upper_bound(address);
  if (after == spans_.begin()) return std::nullopt;
  const Span &span = std::prev(after)->second;
  if (address >= span.end) return std::nullopt;
  return span.index;
}

}  // namespace kpp::dwarf
