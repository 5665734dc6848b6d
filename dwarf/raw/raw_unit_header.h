// The header of one unit of .debug_info (DWARF 2-5, 32- and 64-bit), read
// raw: where its DIEs lie, where its abbreviations are, and the sizes its
// attribute forms take.
#pragma once

#include <cstdint>

#include "dwarf/raw/raw_sections.h"
#include "util/result.h"

namespace kpp::dwarf::raw {

struct UnitHeader {
  const DwarfBytes *bytes = nullptr;  // the sections the unit is in
  uint64_t offset = 0;       // of the unit in bytes->info
  uint64_t dies = 0;         // offset of the first DIE
  uint64_t end = 0;
  uint64_t abbrev_offset = 0;
  uint8_t version = 0;
  uint8_t offset_size = 4;
  uint8_t address_size = 8;
  bool has_code_dies = true;  // not a type unit
  bool skeleton = false;      // a DWARF 5 skeleton: only its unit DIE is read (its other DIEs are in its split unit)
  bool split = false;         // a split unit: its DIEs are named by handles
  uint64_t handle_base = 0;
  uint64_t str_offsets_base = 0;  // a split unit's; others give theirs in DW_AT_str_offsets_base

  // What the index and the references call the DIE at `offset` of bytes->info.
  uint64_t handle(uint64_t at) const { return split ? handle_base + (at - offset) : at; }
};

// The header of the unit at offset `at` of b.info; the result points at `b`.
// Errors: `at` outside .debug_info, a header or unit length that runs past
// its end, a version other than 2-5.
Result<UnitHeader> read_unit_header(const DwarfBytes &b, uint64_t at);

}  // namespace kpp::dwarf::raw
