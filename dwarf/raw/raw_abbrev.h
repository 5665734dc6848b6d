// A unit's abbreviation table (.debug_abbrev), read raw: for each code, the
// DIE's tag, whether it has children, and its attributes' names and forms.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "dwarf/raw/raw_forms.h"
#include "dwarf/raw/raw_sections.h"
#include "util/result.h"

namespace kpp::dwarf::raw {

struct Attr {
  uint16_t at;
  uint16_t form;
  int64_t implicit_const = 0;  // the value of a DW_FORM_implicit_const
};

struct Abbrev {
  uint16_t tag = 0;  // 0: no abbreviation has this code
  bool children = false;
  bool interesting = false;  // a subprogram or inlined copy: its attributes are read
  bool skippable = false;    // a type whose subtree holds no code: jumped over by DW_AT_sibling
  std::vector<Attr> attrs;
};

// The abbreviation table at `offset` of b.abbrev, indexed by code; `read`
// is set to the bytes it took. Errors: `offset` outside the section, a code
// over a million, a table that runs past the section's end.
Result<std::vector<Abbrev>> read_abbrevs(const DwarfBytes &b, uint64_t offset, std::string_view &read);

// Whether some attribute of some declaration of the table at `offset` of
// `abbrev` (a whole .debug_abbrev) makes `wanted(attribute, form)` true;
// true too when the table cannot be read to its end. `end`, when given, is
// set to where the table ends. Nothing is kept.
bool any_attribute_in_table(std::string_view abbrev, uint64_t offset, bool (*wanted)(uint16_t attribute, uint16_t form),
                            uint64_t *end = nullptr);

// Moves `c` over the attributes of a DIE of abbreviation `a` of unit `u`.
inline void skip_attrs(Cursor &c, const Abbrev &a, const UnitHeader &u) {
  for (const Attr &attr : a.attrs) skip_form(c, attr.form, u);
}

// The size of the attributes of every DIE of abbreviation `a` in unit `u`,
// or -1 when it differs from DIE to DIE: those of a fixed size are skipped
// in one step.
inline int fixed_attrs_size(const Abbrev &a, const UnitHeader &u) {
  int total = 0;
  for (const Attr &attr : a.attrs) {
    int size = fixed_form_size(attr.form, u);
    if (size < 0) return -1;
    total += size;
  }
  return total;
}

}  // namespace kpp::dwarf::raw
