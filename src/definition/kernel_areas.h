// The parts of a vmlinux that kprobes refuse whole: .kprobes.text (kprobes'
// own code), .noinstr.text (entry code that runs before the kernel may be
// instrumented) and .entry.text. A linked vmlinux keeps them inside .text,
// so they are found by their start/end marker symbols. Reading the vmlinux
// is enough, so -D refuses them too, for any kernel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dwarf/debug_info.h"

namespace kpp {

class KernelAreas {
 public:
  // The areas whose markers `debug` has (none for a module or a program).
  static KernelAreas of(dwarf::ElfFacts &debug);
  // "the kernel's .noinstr.text", when `address` is in one of them.
  std::optional<std::string> area_of(uint64_t address) const;

 private:
  struct Area {
    std::string name;
    dwarf::AddressRange range;
  };
  std::vector<Area> areas_;
};

}  // namespace kpp
