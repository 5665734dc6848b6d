#include "dwarf/source/supplementary_link.h"

#include <cstdint>

#include "util/strings.h"

namespace kpp::dwarf {

namespace {

// The NUL-terminated path at the start of `bytes`, and what follows it.
std::optional<std::pair<std::string_view, std::string_view>> path_then_rest(std::string_view bytes) {
  size_t nul = bytes.find('\0');
  if (nul == std::string_view::npos || nul == 0) return std::nullopt;
  return std::pair{bytes.substr(0, nul), bytes.substr(nul + 1)};
}

}  // namespace

std::optional<SupplementaryLink> parse_gnu_debugaltlink(std::string_view section) {
  auto parts = path_then_rest(section);
  if (!parts) return std::nullopt;
  return SupplementaryLink{std::string(parts->first), hex_bytes(parts->second), ".gnu_debugaltlink"};
}

std::optional<SupplementaryLink> parse_debug_sup(std::string_view section, bool little_endian) {
  if (section.size() < 4) return std::nullopt;
  auto byte = [&](size_t i) { return static_cast<uint8_t>(section[i]); };
  uint16_t version = little_endian ? byte(0) | byte(1) << 8 : byte(0) << 8 | byte(1);
  if (version != 5 || byte(2) != 0) return std::nullopt;  // is_supplementary: the supplementary file itself
  auto parts = path_then_rest(section.substr(3));
  if (!parts) return std::nullopt;
  // ULEB128 length, at most 10 bytes for 64 bits, then that many bytes of checksum.
  std::string_view rest = parts->second;
  uint64_t length = 0;
  size_t used = 0;
  bool ended = false;
  for (int shift = 0; !ended && used < rest.size() && used < 10; shift += 7) {
    uint8_t b = static_cast<uint8_t>(rest[used++]);
    length |= uint64_t{b & 0x7fu} << shift;
    ended = !(b & 0x80);
  }
  if (!ended || length > rest.size() - used) return std::nullopt;
  return SupplementaryLink{std::string(parts->first), hex_bytes(rest.substr(used, length)), ".debug_sup"};
}

}  // namespace kpp::dwarf
