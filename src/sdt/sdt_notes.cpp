#include "src/sdt/sdt_notes.h"

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "util/elf_notes.h"
#include "util/strings.h"

namespace kpp::sdt {

namespace {

constexpr uint32_t kNtStapsdt = 3;
constexpr char kOwner[] = "stapsdt";

uint64_t load64(std::string_view b, uint64_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

// The NUL-terminated string at desc[at], advancing `at` past it; nullopt when
// it has no NUL inside desc or is longer than kMaxNoteString.
std::optional<std::string> take_string(std::string_view desc, size_t &at) {
  size_t nul = desc.find('\0', at);
  if (nul == std::string_view::npos || nul - at > kMaxNoteString) return std::nullopt;
  std::string s(desc.substr(at, nul - at));
  at = nul + 1;
  return s;
}

// The bytes an architecture's <sys/sdt.h> puts at the marker (_SDT_NOP):
// a probe anywhere else would land inside or between other instructions.
std::optional<std::string> marker_instruction(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return std::string("\x90", 1);
    case EM_AARCH64: return std::string("\x1f\x20\x03\xd5", 4);
    default: return std::nullopt;
  }
}

// Provider and name become the event's group and name.
bool is_identifier(const std::string &s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Fills marker.file_offset and marker.semaphore_offset, or marker.problem.
void check_against_binary(const dwarf::ElfReader &elf, SdtMarker &marker) {
  if (!is_identifier(marker.provider) || !is_identifier(marker.name)) {
    marker.problem = "its provider or name is not a C identifier";
    return;
  }
  auto at = elf.file_offset(marker.address, PF_X);
  if (!at) {
    marker.problem = "its address " + hex(marker.address) + " is not in an executable segment of the file";
    return;
  }
  if (auto nop = marker_instruction(elf.machine())) {
    auto bytes = elf.read(*at, nop->size());
    if (!bytes || *bytes != *nop) {
      marker.problem = "its address " + hex(marker.address) + " does not hold the marker's nop instruction";
      return;
    }
  }
  marker.file_offset = *at;
  if (marker.semaphore == 0) return;
  auto sem = elf.file_offset(marker.semaphore, PF_W);
  if (!sem || !elf.read(*sem, 2)) {
    marker.problem = "its semaphore " + hex(marker.semaphore) + " is not in a writable segment of the file";
    return;
  }
  if (*sem % 2 != 0) {
    marker.problem = "its semaphore " + hex(marker.semaphore) + " is not 2-byte aligned, as the kernel's reference counter must be";
    return;
  }
  marker.semaphore_offset = *sem;
}

// The marker a stapsdt note describes, its addresses moved as the
// .stapsdt.base section was (prelinking). Errors: why the note is malformed.
Result<SdtMarker> marker_of(const ElfNote &note, const dwarf::ElfSectionHeader *base_section) {
  std::string_view desc = note.desc;
  if (desc.size() < 24) return Error("its descriptor is too short for pc, base and semaphore");
  SdtMarker m;
  m.address = load64(desc, 0);
  uint64_t base = load64(desc, 8);
  m.semaphore = load64(desc, 16);
  size_t s = 24;
  auto provider = take_string(desc, s);
  auto name = provider ? take_string(desc, s) : std::nullopt;
  auto args = name ? take_string(desc, s) : std::nullopt;
  if (!args) return Error("its provider, name or arguments have no terminating NUL");
  m.provider = std::move(*provider);
  m.name = std::move(*name);
  m.args = std::move(*args);
  // Prelinked: the section moved from where the note says it was.
  if (base_section && base != 0) {
    uint64_t delta = base_section->address - base;
    m.address += delta;
    if (m.semaphore) m.semaphore += delta;
  }
  return m;
}

// The bytes of the note section, at most kMaxNoteSection of them.
Result<std::string_view> note_bytes(const dwarf::ElfReader &elf, const dwarf::ElfSectionHeader &section) {
  const std::string name(section.name);
  if (section.type == SHT_NOBITS) return Error("section " + name + " of '" + elf.path() + "' has no contents");
  if (section.size > kMaxNoteSection)
    return Error("section " + name + " of '" + elf.path() + "' is " + std::to_string(section.size) +
                 " bytes, more than the " + std::to_string(kMaxNoteSection) + " kprobe-probe reads");
  auto bytes = elf.contents(section);
  if (!bytes) return Error("section " + name + " of '" + elf.path() + "' lies outside the file");
  return *bytes;
}

}  // namespace

Result<dwarf::ElfReader> open_marker_file(const std::string &path) {
  auto elf = dwarf::ElfReader::open(path);
  if (!elf) return elf;
  if (!elf->is64() || !elf->is_little_endian())
    return Error("'" + path + "' is not a 64-bit little-endian ELF file, the only kind whose SDT markers kprobe-probe reads");
  return elf;
}

std::string sdt_event_name(const SdtMarker &marker) { return "sdt_" + marker.provider + ":" + marker.name; }

Result<std::vector<SdtMarker>> read_sdt_markers(const dwarf::ElfReader &elf) {
  std::vector<SdtMarker> markers;
  const dwarf::ElfSectionHeader *notes = elf.section(".note.stapsdt");
  if (!notes) return markers;
  auto bytes = note_bytes(elf, *notes);
  if (!bytes) return std::move(bytes).error();
  const dwarf::ElfSectionHeader *base_section = elf.section(".stapsdt.base");

  auto malformed = [&](uint64_t at, const std::string &why) {
    return Error("malformed SDT note at offset " + hex(notes->offset + at) + " of '" + elf.path() + "': " + why);
  };
  std::string_view b = *bytes;
  std::optional<Error> bad;
  std::optional<NoteDamage> damage = walk_elf_notes(b, [&](const ElfNote &note) {
    if (note.type != kNtStapsdt || note.name != std::string_view(kOwner, sizeof kOwner))
      return true;  // another owner's note: not ours to read
    auto marker = marker_of(note, base_section);
    if (!marker) {
      bad = malformed(note.offset, marker.error().message);
      return false;
    }
    check_against_binary(elf, *marker);
    markers.push_back(std::move(*marker));
    return true;
  });
  if (damage) return malformed(damage->offset, damage->why);
  if (bad) return std::move(*bad);
  return markers;
}

}  // namespace kpp::sdt
