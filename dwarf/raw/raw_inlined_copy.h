// An inlined copy of a function read raw from its own unit: where its code
// is, and the function whose frame it runs in. LLVM would first read every
// DIE of the unit; under LTO a function's copies lie in dozens of units
// (python3.11's PyObject_Malloc: 137 copies, ~140 M instructions of a
// warm lookup that read nothing else of those units).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dwarf/debug_info.h"
#include "dwarf/raw/raw_unit.h"

namespace kpp::dwarf {

struct RawInlinedCopy {
  uint64_t origin = 0;  // its DW_AT_abstract_origin, a DIE of any unit: the copy's name and declaration are its
  uint64_t entry = 0;   // where its code starts (die_links.h's code_entry)
  std::vector<AddressRange> ranges;  // as LLVM's getAddressRanges() lists them
  // The subprogram whose body holds the copy (nullopt: none), where that
  // body's code starts, and the DIE its own DW_AT_abstract_origin (else
  // DW_AT_specification) names.
  std::optional<uint64_t> body, body_entry, body_link;
  bool optimized = false;  // the unit says so (optimized_code.h)
};

// The inlined copy whose DIE starts at `offset` of `unit`, read as LLVM
// reads it. The function that holds it is found by a walk from the unit DIE
// that jumps over the subtrees DW_AT_sibling says end before it (as the
// function scan trusts them; LLVM reads every DIE). nullopt, for the caller
// to ask LLVM, when the walk does not land on `offset` (a reference into
// the middle of a DIE is no copy), when it is no DW_TAG_inlined_subroutine, when it names or
// declares itself (its name would not be its origin's), when its unit does
// not say it is optimized (whether its variables say so is LLVM's to read),
// and when a value takes what the raw reader does not read (indexed
// addresses, indexed range lists, DWARF 4's .debug_ranges, a range list
// LLVM would refuse).
std::optional<RawInlinedCopy> read_inlined_copy(const RawUnit &unit, uint64_t offset);

// The DIE that the DIE at `offset` of `unit` names by DW_AT_abstract_origin,
// else DW_AT_specification (any unit); nullopt when it has neither, or
// cannot be read.
std::optional<uint64_t> raw_origin_link(const RawUnit &unit, uint64_t offset);

}  // namespace kpp::dwarf
