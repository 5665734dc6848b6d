// The one reader of ELF headers for the whole tool: the file header, the
// section and program header tables, section names, notes, and the file
// offset of a link-time address. Every field is read through a bounds
// check against the file's bytes (a file the user does not own may be
// hostile, truncated or lying): a table that does not fit is an error naming
// it and its numbers, a section or segment that does not fit reads as
// absent. Any class (32/64-bit) and byte order. No LLVM: used by dwarf/
// (the image's segments and build-id, the bounds check, the inflated
// image), src/sdt (markers) and whoever needs a fact of an ELF file.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kpp::dwarf {

struct ElfSectionHeader {
  uint64_t index = 0;
  uint32_t name_offset = 0;  // sh_name: into the section name table
  std::string_view name;     // "" when the names are unreadable
  uint32_t type = 0;
  uint64_t flags = 0, address = 0, offset = 0, size = 0, link = 0, info = 0, alignment = 0, entry_size = 0;
};

struct ElfSegmentHeader {
  uint32_t type = 0, flags = 0;  // PT_*, PF_X | PF_W | PF_R
  uint64_t offset = 0, address = 0, file_size = 0, memory_size = 0;
};

class ElfReader {
 public:
  // Maps the file at `path` read-only and reads its headers. Errors: cannot
  // open, not a regular file, and those of of().
  static Result<ElfReader> open(const std::string &path);
  // The headers of `bytes`, a whole ELF file that outlives the reader.
  // Errors (naming the table and the numbers, not the file): no ELF header,
  // an unknown class or byte order, "the ELF header is cut short", header
  // tables of an unexpected entry size or that do not fit in the file
  // (these with the hint "its headers lie outside the file").
  static Result<ElfReader> of(std::string_view bytes);

  const std::string &path() const { return path_; }  // open()'s; "" for of()
  std::string_view bytes() const { return bytes_; }
  bool is64() const { return is64_; }
  bool is_little_endian() const { return little_; }
  uint16_t machine() const { return machine_; }  // e_machine
  uint16_t type() const { return type_; }        // e_type
  // ET_DYN without a program interpreter (a PIE program has one).
  bool is_shared_library() const;

  const std::vector<ElfSectionHeader> &sections() const { return sections_; }
  const std::vector<ElfSegmentHeader> &segments() const { return segments_; }
  // The first section named `name`, or null.
  const ElfSectionHeader *section(std::string_view name) const;
  // A section's bytes; nullopt for SHT_NOBITS or one that lies outside the file.
  std::optional<std::string_view> contents(const ElfSectionHeader &section) const;
  // `size` bytes at file offset `offset`; nullopt when they are not all in the file.
  std::optional<std::string_view> read(uint64_t offset, uint64_t size) const;
  // A `width`-byte field at `at`, in the file's byte order; nullopt past the end.
  std::optional<uint64_t> field(uint64_t at, unsigned width) const;

  // The file offset uprobes take for link-time `address`: the PT_LOAD
  // segment whose file contents (not its zero-filled tail) hold it, and that
  // allows all of `need_flags` (PF_X, PF_W; 0: any). The one file_offset.
  std::optional<uint64_t> file_offset(uint64_t address, uint32_t need_flags = 0) const;
  // And back: the link-time address of file offset `offset`.
  std::optional<uint64_t> address_of_file_offset(uint64_t offset) const;

  // The value of the first defined symbol named `name` (.symtab, then
  // .dynsym), or nullopt; the tables are read where they lie in the file.
  std::optional<uint64_t> symbol_address(std::string_view name) const;

  // The GNU build-id (NT_GNU_BUILD_ID), through the PT_NOTE segments or,
  // in a file without them (a .ko), the SHT_NOTE sections; lowercase hex,
  // "" when none.
  std::string build_id() const;

 private:
  ElfReader() = default;
  Status read_sections(uint64_t shoff, uint64_t entry_size, uint64_t count, uint64_t &segment_count);
  Status read_segments(uint64_t phoff, uint64_t entry_size, uint64_t count);
  void name_sections();

  std::string path_;
  std::shared_ptr<const void> mapping_;  // open()'s mapping, unmapped with the last copy
  std::string_view bytes_;
  bool is64_ = true, little_ = true;
  uint16_t machine_ = 0, type_ = 0;
  uint64_t names_index_ = 0;
  std::vector<ElfSectionHeader> sections_;
  std::vector<ElfSegmentHeader> segments_;
};

// A `width`-byte (up to 8) field at `at` of `bytes` in the byte order
// `little`; nullopt past the end. The one field reader of ELF's data.
std::optional<uint64_t> read_field(std::string_view bytes, uint64_t at, unsigned width, bool little);

// [offset, offset + size) inside `file_size` bytes, without wrapping.
inline bool lies_inside(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

}  // namespace kpp::dwarf
