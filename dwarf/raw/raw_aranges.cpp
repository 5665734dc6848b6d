#include "dwarf/raw/raw_aranges.h"

#include "dwarf/raw/raw_cursor.h"

namespace kpp::dwarf {

std::optional<uint64_t> unit_at_address(std::string_view aranges, uint64_t address) {
  raw::Cursor c = raw::cursor_at(aranges, 0);
  while (c.ok && c.p < c.end) {
    const uint8_t *set = c.p;
    uint64_t length = c.fixed(4);
    size_t offset_size = 4;
    if (length == 0xffffffff) {
      length = c.fixed(8);
      offset_size = 8;
    }
    if (!c.ok || length > static_cast<uint64_t>(c.end - c.p)) return std::nullopt;
    const uint8_t *next = c.p + length;
    c.fixed(2);  // version
    uint64_t unit = c.fixed(offset_size);
    size_t address_size = c.fixed(1);
    size_t segment_size = c.fixed(1);
    if (!c.ok || (address_size != 4 && address_size != 8) || segment_size != 0) return std::nullopt;
    // Tuples start at a multiple of their own size from the set's start.
    size_t tuple = 2 * address_size, header = c.p - set;
    c.skip((tuple - header % tuple) % tuple);
    while (c.ok && c.p + tuple <= next) {
      uint64_t begin = c.fixed(address_size), size = c.fixed(address_size);
      if (begin == 0 && size == 0) break;
      if (address >= begin && address - begin < size) return unit;
    }
    c.p = next;
  }
  return std::nullopt;
}

}  // namespace kpp::dwarf
