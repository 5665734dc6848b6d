// The last check before a site becomes a definition (issue 12 item 3): a
// uprobe at a wrong address corrupts the traced process, and the facts that
// chose the address came through caches (the name index, the symbol table's
// sorted copy). So the final address is checked against the binary itself.
#pragma once

#include <cstdint>

#include "dwarf/debug_info.h"
#include "util/result.h"

namespace kpp {

// Refuses `address` as a site of `fn` unless it lies in one of fn's ranges,
// inside the function per the symbol table (the symbol that covers it
// starts inside fn's code: its entry, or a part of it such as foo.cold; for
// an inlined copy, some function symbol covers it), and (unless `force`, -f)
// at an instruction start by the line table or the disassembler. A binary
// whose symbol table says nothing about the address is not refused for that.
Status check_final_site(dwarf::DebugInfo &debug, const dwarf::Function &fn, uint64_t address, bool force);

}  // namespace kpp
