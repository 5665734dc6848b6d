#include "dwarf/raw/raw_abbrev.h"

#include <string>

#include "util/strings.h"

namespace kpp::dwarf::raw {

Result<std::vector<Abbrev>> read_abbrevs(const DwarfBytes &b, uint64_t offset, std::string_view &read) {
  if (offset >= b.abbrev.size()) return Error("abbreviation table offset " + hex(offset) + " is out of range");
  Cursor c = cursor_at(b.abbrev, offset);
  auto truncated = [&] { return Error("abbreviation table at " + hex(offset) + " is truncated"); };
  std::vector<Abbrev> table;
  // Each declaration's attributes are gathered here and copied once, at
  // their size: grown one by one they took three or four allocations each
  // (an LTO python3.11 reads ~15,000 declarations on a scan).
  std::vector<Attr> attrs;
  while (c.ok) {
    uint64_t code = c.uleb();
    if (code == 0) break;
    if (code > 1'000'000) return Error("abbreviation code " + std::to_string(code) + " is implausibly large");
    Abbrev a;
    a.tag = static_cast<uint16_t>(c.uleb());
    a.children = c.fixed(1) != 0;
    a.interesting = a.tag == TAG_subprogram || a.tag == TAG_inlined_subroutine;
    a.skippable = a.tag == TAG_structure_type || a.tag == TAG_union_type || a.tag == TAG_class_type ||
                  a.tag == TAG_enumeration_type || a.tag == TAG_subroutine_type || a.tag == TAG_array_type;
    attrs.clear();
    for (;;) {
      uint16_t at = static_cast<uint16_t>(c.uleb());
      uint16_t form = static_cast<uint16_t>(c.uleb());
      if (!c.ok) return truncated();
      if (at == 0 && form == 0) break;
      int64_t implicit = 0;
      if (form == FORM_implicit_const) implicit = c.sleb();  // in the table, not in the DIEs
      attrs.push_back({at, form, implicit});
    }
    a.attrs.assign(attrs.begin(), attrs.end());
    if (table.size() <= code) table.resize(code + 1);
    table[code] = std::move(a);
  }
  if (!c.ok) return truncated();
  read = b.abbrev.substr(offset, c.p - (bytes_of(b.abbrev) + offset));
  return table;
}

bool any_attribute_in_table(std::string_view abbrev, uint64_t offset, bool (*wanted)(uint16_t attribute, uint16_t form),
                            uint64_t *end) {
  if (offset >= abbrev.size()) return true;
  Cursor c = cursor_at(abbrev, offset);
  while (c.ok) {
    if (c.uleb() == 0) break;  // the table's end
    c.skip_leb();              // tag
    c.skip(1);                 // children
    for (;;) {
      uint16_t at = static_cast<uint16_t>(c.uleb());
      uint16_t form = static_cast<uint16_t>(c.uleb());
      if (!c.ok) return true;
      if (at == 0 && form == 0) break;
      if (form == FORM_implicit_const) c.skip_leb();
      if (wanted(at, form)) return true;
    }
  }
  if (end) *end = static_cast<uint64_t>(c.p - bytes_of(abbrev));
  return !c.ok;
}


}  // namespace kpp::dwarf::raw
