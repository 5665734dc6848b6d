// ELF notes (a PT_NOTE segment's or SHT_NOTE section's bytes, or the
// kernel's /sys/kernel/notes): the one walker of their records, for the
// build-id and the SDT markers. Each record is namesz, descsz and type as
// native 32-bit words, then the name and the descriptor, each padded to 4
// bytes (the ELF gABI, "Note Section").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kpp {

struct ElfNote {
  uint32_t type = 0;
  std::string_view name;  // namesz bytes, its NUL included ("GNU\0")
  std::string_view desc;
  uint64_t offset = 0;    // of the record in the bytes walked
};

// Where the notes stop making sense: the record's offset and why.
struct NoteDamage {
  uint64_t offset = 0;
  std::string why;  // "a note header runs past the section", "a note runs past the section"
};

// Calls `each` for every note of `notes`, in order, until it returns false.
// nullopt when the walk ended at the end of the bytes or by `each`.
// `swapped`: the words are in the other byte order than this machine's (a
// big-endian file read on x86); the kernel's notes are in its own.
std::optional<NoteDamage> walk_elf_notes(std::string_view notes, const std::function<bool(const ElfNote &)> &each,
                                         bool swapped = false);

// The GNU build-id (NT_GNU_BUILD_ID of owner "GNU") in `notes`, as lower-case
// hex; "" when there is none before the notes end or are damaged.
std::string gnu_build_id(std::string_view notes, bool swapped = false);

}  // namespace kpp
