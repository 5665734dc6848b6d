// Hand-made DWARF bytes for the raw reader's tests (no compiler, no LLVM):
// little-endian values, LEB128 numbers and C strings, appended in order,
// and the length fields that cover what follows them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kpp::dwarf::test {

class BytesWriter {
 public:
  BytesWriter &fixed(uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) bytes_.push_back(static_cast<char>(v >> (8 * i)));
    return *this;
  }
  BytesWriter &u8(uint64_t v) { return fixed(v, 1); }
  BytesWriter &u16(uint64_t v) { return fixed(v, 2); }
  BytesWriter &u32(uint64_t v) { return fixed(v, 4); }
  BytesWriter &u64(uint64_t v) { return fixed(v, 8); }
  BytesWriter &uleb(uint64_t v) {
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      bytes_.push_back(static_cast<char>(v ? b | 0x80 : b));
    } while (v);
    return *this;
  }
  BytesWriter &sleb(int64_t v) {
    for (;;) {
      uint8_t b = v & 0x7f;
      v >>= 7;  // arithmetic: the sign stays
      bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
      bytes_.push_back(static_cast<char>(done ? b : b | 0x80));
      if (done) return *this;
    }
  }
  BytesWriter &str(std::string_view s) {
    bytes_.append(s);
    bytes_.push_back('\0');
    return *this;
  }
  // A DWARF length field of `offset_size` (8: the 64-bit escape first),
  // to be filled in by end_length() with the number of bytes after it.
  size_t begin_length(int offset_size) {
    if (offset_size == 8) u32(0xffffffff);
    size_t at = bytes_.size();
    fixed(0, offset_size);
    return at;
  }
  void end_length(size_t at, int offset_size) { put(at, bytes_.size() - at - offset_size, offset_size); }
  // Overwrites the `n` bytes at `at` with `v` (a value known only later).
  void put(size_t at, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) bytes_[at + i] = static_cast<char>(v >> (8 * i));
  }
  size_t size() const { return bytes_.size(); }
  const std::string &bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace kpp::dwarf::test
