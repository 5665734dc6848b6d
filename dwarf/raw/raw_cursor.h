// A cursor over the bytes of a DWARF section: little-endian fixed-size
// values, LEB128 numbers and C strings. A read that would run past `end`
// reads nothing, returns 0 and clears `ok`, which stays cleared: callers
// check it once after a run of reads. Inline: the function scan reads
// millions of values through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace kpp::dwarf::raw {

struct Cursor {
  const uint8_t *p;
  const uint8_t *end;
  bool ok = true;

  bool need(size_t n) {
    if (static_cast<size_t>(end - p) < n) ok = false;
    return ok;
  }
  uint64_t fixed(size_t n) {  // little-endian
    if (!need(n)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    p += n;
    return v;
  }
  // LEB128 numbers may be padded (0x80 groups) to any length; a value that
  // does not fit in 64 bits is refused rather than cut.
  uint64_t uleb() {
    uint64_t v = 0;
    for (int shift = 0; p < end; shift += 7) {
      uint8_t b = *p++;
      uint64_t bits = b & 0x7f;
      if (shift < 63) v |= bits << shift;
      else if (bits > (shift == 63 ? 1u : 0u)) break;  // a bit past the 64th
      else v |= bits << 63;
      if (!(b & 0x80)) return v;
    }
    ok = false;
    return 0;
  }
  int64_t sleb() {
    uint64_t v = 0;
    for (int shift = 0; p < end; shift += 7) {
      uint8_t b = *p++;
      uint64_t bits = b & 0x7f;
      if (shift < 63) {
        v |= bits << shift;
      } else {
        // The 64th bit is the sign; every bit past it must repeat it.
        uint64_t sign = shift == 63 ? bits & 1 : v >> 63;
        if (bits != (sign ? 0x7fu : 0u)) break;
        v |= sign << 63;
      }
      if (!(b & 0x80)) {
        if (shift + 7 < 64 && (b & 0x40)) v |= ~uint64_t{0} << (shift + 7);
        return static_cast<int64_t>(v);
      }
    }
    ok = false;
    return 0;
  }
  void skip_leb() {
    while (p < end && (*p & 0x80)) ++p;
    if (p < end) ++p; else ok = false;
  }
  void skip(uint64_t n) {
    if (need(n)) p += n;
  }
  std::string_view cstring() {
    const void *nul = std::memchr(p, 0, end - p);
    if (!nul) { ok = false; return {}; }
    std::string_view s(reinterpret_cast<const char *>(p), static_cast<const uint8_t *>(nul) - p);
    p = static_cast<const uint8_t *>(nul) + 1;
    return s;
  }
};

// The bytes of `s`, for a Cursor.
inline const uint8_t *bytes_of(std::string_view s) { return reinterpret_cast<const uint8_t *>(s.data()); }

// A cursor over `s` from `offset` (at most its size) to its end.
inline Cursor cursor_at(std::string_view s, uint64_t offset) { return Cursor{bytes_of(s) + offset, bytes_of(s) + s.size()}; }

}  // namespace kpp::dwarf::raw
