#include "util/elf_notes.h"

#include <cstring>

#include "util/strings.h"

namespace kpp {

namespace {

uint32_t u32_at(std::string_view s, uint64_t at, bool swapped) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, sizeof v);
  return swapped ? __builtin_bswap32(v) : v;
}

uint64_t align4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

}  // namespace

std::optional<NoteDamage> walk_elf_notes(std::string_view notes, const std::function<bool(const ElfNote &)> &each,
                                         bool swapped) {
  uint64_t at = 0;
  while (at < notes.size()) {
    if (notes.size() - at < 12) return NoteDamage{at, "a note header runs past the section"};
    uint64_t namesz = u32_at(notes, at, swapped), descsz = u32_at(notes, at + 4, swapped);
    uint64_t name_at = at + 12, desc_at = name_at + align4(namesz);
    if (desc_at > notes.size() || descsz > notes.size() - desc_at) return NoteDamage{at, "a note runs past the section"};
    ElfNote note{u32_at(notes, at + 8, swapped), notes.substr(name_at, namesz), notes.substr(desc_at, descsz), at};
    if (!each(note)) return std::nullopt;
    at = desc_at + align4(descsz);
  }
  return std::nullopt;
}

std::string gnu_build_id(std::string_view notes, bool swapped) {
  constexpr uint32_t nt_gnu_build_id = 3;
  std::string id;
  walk_elf_notes(notes, [&](const ElfNote &note) {
    if (note.type != nt_gnu_build_id || note.name != std::string_view("GNU\0", 4)) return true;
    id = hex_bytes(note.desc);
    return false;
  }, swapped);
  return id;
}

}  // namespace kpp
