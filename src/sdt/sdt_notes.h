// SDT (USDT) markers as <sys/sdt.h> records them: one NT_STAPSDT note per
// marker site in .note.stapsdt, read straight from the ELF file (no
// buildid-cache step). The note format is SystemTap's
// (sourceware.org/systemtap/wiki/UserSpaceProbeImplementation):
//
//   namesz, descsz, type = 3, "stapsdt\0",
//   desc = pc, base, semaphore (addresses, 8 bytes each on 64-bit),
//          "provider\0" "name\0" "args\0"
//
// `base` is the link-time address of .stapsdt.base: when the file was
// prelinked, the section moved and pc and semaphore move by the same amount.
//
// Every marker is checked against the binary before it may place a probe:
// its pc in an executable segment's file contents (and, where the marker's
// instruction is known, at that instruction), its semaphore in a writable
// segment's file contents, 2-byte aligned as the kernel's reference counter
// must be. A marker that fails a check keeps the reason in `problem`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dwarf/elf_reader.h"
#include "util/result.h"

namespace kpp::sdt {

struct SdtMarker {
  std::string provider;
  std::string name;
  std::string args;                    // the operands as the note has them: "8@%rbx -4@112(%rsp)"
  uint64_t address = 0;                // link-time pc, prelink-adjusted
  uint64_t semaphore = 0;              // link-time address of the semaphore; 0 when there is none
  uint64_t file_offset = 0;            // where the uprobe goes (valid when `problem` is empty)
  std::optional<uint64_t> semaphore_offset;  // the reference counter's file offset
  std::string problem;                 // why this marker cannot be probed; empty when it can
};

// Bounds on what one file may make us read.
inline constexpr uint64_t kMaxNoteSection = 16ull << 20;
inline constexpr size_t kMaxNoteString = 4096;

// The file at `path`, its headers read (dwarf/elf_reader.h). Errors: those
// of ElfReader::open, and a file that is not 64-bit little-endian (every
// architecture whose SDT operands we translate is one).
Result<dwarf::ElfReader> open_marker_file(const std::string &path);

// Every marker of `elf`, in note order. An empty list when the file has no
// .note.stapsdt. Errors: the section is unreadable or malformed (a note that
// runs past the section, a string without its NUL).
Result<std::vector<SdtMarker>> read_sdt_markers(const dwarf::ElfReader &elf);

// "sdt_python:function__entry", perf's name of the marker's event.
std::string sdt_event_name(const SdtMarker &marker);

}  // namespace kpp::sdt
