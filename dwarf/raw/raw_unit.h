// One unit of a linked file read raw, DIE by DIE, without LLVM: the few
// attributes a return type's chain needs, the subprogram at an address, and
// the unit DIE's line table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "dwarf/raw/raw_abbrev.h"
#include "dwarf/raw/raw_sections.h"
#include "dwarf/raw/raw_unit_header.h"

namespace kpp::dwarf {

// The attributes of one DIE that a type chain needs, read raw.
struct RawDie {
  uint16_t tag = 0;
  std::optional<uint64_t> type;    // DW_AT_type, a DIE of the same unit
  std::optional<uint64_t> origin;  // DW_AT_abstract_origin or DW_AT_specification, the same
  std::optional<uint64_t> low_pc;  // DW_FORM_addr only
  std::optional<uint64_t> byte_size, encoding;
};

// One unit of a linked file, read raw (no LLVM, no other unit): a FUNC%return
// $retval needs one subprogram's type, which LLVM would find only after
// reading every unit header and all of this unit's DIEs. Copies share
// their parsed abbreviations.
class RawUnit {
 public:
  // nullopt for a unit that cannot be read (malformed, a type unit).
  static std::optional<RawUnit> open(const DwarfBytes &bytes, uint64_t unit_offset);
  // The DIE at `offset` (of .debug_info); nullopt outside the unit, or
  // when it refers to another unit.
  std::optional<RawDie> die_at(uint64_t offset) const;
  // The subprogram DIE whose DW_AT_low_pc is `address`.
  std::optional<uint64_t> subprogram_at(uint64_t address) const;
  uint8_t address_size() const;
  // Its header (pointing at this copy's sections) and abbreviations, by code.
  const raw::UnitHeader &header() const;
  const std::vector<raw::Abbrev> &abbrevs() const;

 private:
  struct Parts;
  DwarfBytes bytes_;
  std::shared_ptr<Parts> parts_;
};

// The abbreviation of the DIE at `offset` of unit `u`, `c` set at its
// attributes (and bounded by the unit); nullptr when no DIE of the unit can
// start there (outside it, a null entry, a code the table lacks).
const raw::Abbrev *abbrev_of_die(const raw::UnitHeader &u, const std::vector<raw::Abbrev> &abbrevs, uint64_t offset,
                                 raw::Cursor &c);

// Finds `attribute` of the DIE at `offset` of unit `u` reading the unit's
// abbreviation table only up to that DIE's declaration (a vmlinux unit's
// table has hundreds): calls `read` with a cursor at its value and its form,
// and returns true; false when the DIE has no such attribute or cannot be read.
bool find_attribute(const raw::UnitHeader &u, uint64_t offset, uint16_t attribute,
                    const std::function<void(raw::Cursor &, uint16_t)> &read);

// The line table (DW_AT_stmt_list) of each of the units of `bytes` at
// `unit_offsets` that has one, read from their unit DIEs alone: (line table
// offset, unit offset), in the units' order.
std::vector<std::pair<uint64_t, uint64_t>> unit_line_tables(const DwarfBytes &bytes, const std::vector<uint64_t> &unit_offsets);

}  // namespace kpp::dwarf
