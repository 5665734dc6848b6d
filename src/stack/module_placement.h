// Where a module's stack frame is in the module's debug .ko.
//
// kallsyms names the function a frame is in, where the module loader put
// it. The .ko's symbol table, its sections laid out as -m lays them out
// (dwarf/elf/section_layout.h), places the same function at its link-time
// address: the frame is that address plus its offset into the function.
// Same-named statics (two files of one module) are told apart by their
// order: the loader keeps the order of a module's code, so the n-th copy
// kallsyms lists is the .ko's n-th.
#pragma once

#include <cstdint>
#include <optional>

#include "dwarf/debug_info.h"
#include "src/kernel/kallsyms.h"

namespace kpp {

// The link-time address in `ko` of the code `offset` bytes into `function`
// (a code symbol of a module in `kallsyms`); nullopt when the .ko does not
// hold that function (as many times), or the offset is past its end there
// (another build's .ko).
std::optional<uint64_t> module_link_address(dwarf::ElfFacts &ko, const Kallsyms &kallsyms,
                                            const KallsymsEntry &function, uint64_t offset);

}  // namespace kpp
