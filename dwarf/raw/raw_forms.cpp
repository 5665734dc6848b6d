#include "dwarf/raw/raw_forms.h"

#include <cstring>

namespace kpp::dwarf::raw {

namespace {

// The NUL-terminated string at `offset` of `section` (cut at its end).
std::string_view string_in(std::string_view section, uint64_t offset) {
  if (offset >= section.size()) return {};
  return std::string_view(section.data() + offset, strnlen(section.data() + offset, section.size() - offset));
}

}  // namespace

std::string_view string_of(Cursor &c, uint16_t form, const UnitHeader &u, uint64_t str_offsets_base) {
  const DwarfBytes &b = *u.bytes;
  auto indexed = [&](uint64_t index) -> std::string_view {
    uint64_t at = str_offsets_base + index * u.offset_size;
    if (at + u.offset_size > b.str_offsets.size()) return {};
    Cursor s = cursor_at(b.str_offsets, at);
    return string_in(b.str, s.fixed(u.offset_size));
  };
  switch (form) {
    case FORM_string: return c.cstring();
    case FORM_strp: return string_in(b.str, c.fixed(u.offset_size));
    case FORM_line_strp: return string_in(b.line_str, c.fixed(u.offset_size));
    case FORM_strx: case FORM_GNU_str_index: return indexed(c.uleb());
    case FORM_strx1: return indexed(c.fixed(1));
    case FORM_strx2: return indexed(c.fixed(2));
    case FORM_strx3: return indexed(c.fixed(3));
    case FORM_strx4: return indexed(c.fixed(4));
    default: skip_form(c, form, u); return {};
  }
}

}  // namespace kpp::dwarf::raw
