#include "dwarf/raw/raw_unit_header.h"

#include "dwarf/raw/raw_cursor.h"
#include "util/strings.h"

namespace kpp::dwarf::raw {

namespace {

Error bad_unit(uint64_t offset) { return Error("malformed unit header at " + hex(offset) + " of .debug_info"); }

}  // namespace

Result<UnitHeader> read_unit_header(const DwarfBytes &b, uint64_t at) {
  if (at >= b.info.size()) return bad_unit(at);
  Cursor c = cursor_at(b.info, at);
  UnitHeader u;
  u.bytes = &b;
  u.offset = at;
  uint64_t length = c.fixed(4);
  if (length == 0xffffffff) {
    u.offset_size = 8;
    length = c.fixed(8);
  }
  if (!c.ok || length > static_cast<uint64_t>(c.end - c.p)) return bad_unit(u.offset);
  u.end = (c.p - bytes_of(b.info)) + length;
  u.version = static_cast<uint8_t>(c.fixed(2));
  if (u.version < 2 || u.version > 5) return bad_unit(u.offset);
  if (u.version >= 5) {
    uint8_t type = static_cast<uint8_t>(c.fixed(1));
    u.address_size = static_cast<uint8_t>(c.fixed(1));
    u.abbrev_offset = c.fixed(u.offset_size);
    if (type == 4 || type == 5) c.skip(8);  // skeleton, split compile: dwo_id
    // A skeleton's DIEs are in its split unit (scanned from there); type
    // units hold no code.
    if (type == 4) u.skeleton = true;
    if (type == 2 || type == 6) {
      c.skip(8 + u.offset_size);
      u.has_code_dies = false;
    }
  } else {
    u.abbrev_offset = c.fixed(u.offset_size);
    u.address_size = static_cast<uint8_t>(c.fixed(1));
  }
  // An address is read as one fixed-size value: at most 8 bytes (a
  // hostile 200 would shift past 64 bits).
  if (!c.ok || u.address_size == 0 || u.address_size > 8) return bad_unit(u.offset);
  u.dies = c.p - bytes_of(b.info);
  return u;
}

}  // namespace kpp::dwarf::raw
