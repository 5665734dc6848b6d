// The GOT slots of the data symbols a program's code reaches through its
// GOT (an exported variable of a shared library, which the executable may
// have copied into its own data by a copy relocation): where a probe reads
// such a global from, since the variable itself may not be where the
// library's symbol says. One job: the GLOB_DAT dynamic relocations, read
// on the first question and kept by address. Part of ElfImage
// (elf_image.h: got_slot_of); private to dwarf/.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <llvm/Object/ObjectFile.h>

#include "dwarf/elf_facts.h"

namespace kpp::dwarf {

class GotSlots {
 public:
  // The slots of `object`, which must outlive this.
  explicit GotSlots(const llvm::object::ObjectFile &object) : object_(&object) {}

  // The slot of the data symbol that holds `address`, and `address`'s
  // offset into it; nullopt when no GLOB_DAT relocation names such a symbol
  // (or the machine's is not known here: x86-64 and AArch64 are).
  std::optional<ElfFacts::GotSlot> slot_of(uint64_t address);

 private:
  struct Entry {
    uint64_t start = 0, size = 0, slot = 0;
  };
  std::vector<Entry> read() const;  // by start

  const llvm::object::ObjectFile *object_;
  std::optional<std::vector<Entry>> entries_;  // read at first use
};

}  // namespace kpp::dwarf
