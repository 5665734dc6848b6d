// Attribute values of a DIE, read raw by their DW_FORM: the size each form
// takes in a unit, references, and strings (inline, in .debug_str or
// .debug_line_str, or by index through .debug_str_offsets). A form whose
// size is unknown, or a value that runs past the cursor's end, clears the
// cursor's `ok`: the unit cannot be walked further.
#pragma once

#include <cstdint>
#include <string_view>

#include "dwarf/raw/raw_constants.h"
#include "dwarf/raw/raw_cursor.h"
#include "dwarf/raw/raw_unit_header.h"

namespace kpp::dwarf::raw {

// The size of every value of `form` in unit `u`, or -1 when values of it
// differ in size (a LEB128, a string, a block) or the form is unknown.
inline int fixed_form_size(uint16_t form, const UnitHeader &u) {
  switch (form) {
    case FORM_flag_present: case FORM_implicit_const: return 0;
    case FORM_data1: case FORM_ref1: case FORM_flag: case FORM_strx1: case FORM_addrx1: return 1;
    case FORM_data2: case FORM_ref2: case FORM_strx2: case FORM_addrx2: return 2;
    case FORM_strx3: case FORM_addrx3: return 3;
    case FORM_data4: case FORM_ref4: case FORM_ref_sup4: case FORM_strx4: case FORM_addrx4: return 4;
    case FORM_data8: case FORM_ref8: case FORM_ref_sig8: case FORM_ref_sup8: return 8;
    case FORM_data16: return 16;
    case FORM_addr: return u.address_size;
    case FORM_ref_addr: return u.version <= 2 ? u.address_size : u.offset_size;
    case FORM_strp: case FORM_sec_offset: case FORM_line_strp: case FORM_strp_sup: case FORM_GNU_ref_alt:
    case FORM_GNU_strp_alt:
      return u.offset_size;
    default: return -1;
  }
}

// Moves `c` over one value of `form` in unit `u`. Inline: the scan skips
// most attributes of most DIEs.
inline void skip_form(Cursor &c, uint16_t form, const UnitHeader &u) {
  switch (form) {
    case FORM_sdata: case FORM_udata: case FORM_ref_udata: case FORM_strx: case FORM_addrx: case FORM_loclistx:
    case FORM_rnglistx: case FORM_GNU_addr_index: case FORM_GNU_str_index:
      c.skip_leb();
      return;
    case FORM_string: c.cstring(); return;
    case FORM_block1: c.skip(c.fixed(1)); return;
    case FORM_block2: c.skip(c.fixed(2)); return;
    case FORM_block4: c.skip(c.fixed(4)); return;
    case FORM_block: case FORM_exprloc: c.skip(c.uleb()); return;
    case FORM_indirect: skip_form(c, static_cast<uint16_t>(c.uleb()), u); return;
    default: {
      int size = fixed_form_size(form, u);
      if (size < 0) c.ok = false;  // a form we do not know the size of: the unit cannot be walked
      else c.skip(static_cast<uint64_t>(size));
    }
  }
}

// The offset in .debug_info of the DIE a reference of `form` names (a
// unit-relative one made absolute). 0 for a DIE of another file
// (supplementary, alt): unknown here; the value is skipped.
inline uint64_t reference(Cursor &c, uint16_t form, const UnitHeader &u) {
  switch (form) {
    case FORM_ref1: return u.offset + c.fixed(1);
    case FORM_ref2: return u.offset + c.fixed(2);
    case FORM_ref4: return u.offset + c.fixed(4);
    case FORM_ref8: return u.offset + c.fixed(8);
    case FORM_ref_udata: return u.offset + c.uleb();
    case FORM_ref_addr: return c.fixed(u.version <= 2 ? u.address_size : u.offset_size);
    default: skip_form(c, form, u); return 0;
  }
}

// A string attribute of `form` of unit `u`, whose strx index table starts
// at `str_offsets_base` of .debug_str_offsets. Empty when the form is not a
// string's or the string lies outside its section.
std::string_view string_of(Cursor &c, uint16_t form, const UnitHeader &u, uint64_t str_offsets_base);

}  // namespace kpp::dwarf::raw
