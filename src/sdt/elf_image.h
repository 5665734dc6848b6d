// ElfImage: the few parts of an ELF file that SDT markers need -- its
// sections, its loadable segments and its symbols -- read with pread and
// checked against the file's size, so that a file the user does not own
// (hostile, truncated, lying) gives an error, never a read out of bounds.
// 64-bit little-endian files only (every architecture whose SDT operands we
// translate is one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/unique_fd.h"

namespace kpp::sdt {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t address = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct ElfSegment {
  uint32_t flags = 0;  // PF_X, PF_W, PF_R
  uint64_t offset = 0;
  uint64_t address = 0;
  uint64_t file_size = 0;
};

// What a segment must allow for an address to be accepted in it.
enum class SegmentUse { Execute, Write };

class ElfImage {
 public:
  // Errors: the file cannot be opened, is not ELF, is not 64-bit
  // little-endian, or its headers point outside it.
  static Result<ElfImage> open(const std::string &path);

  const std::string &path() const { return path_; }
  uint16_t machine() const { return machine_; }
  uint64_t file_size() const { return file_size_; }

  // The first section named `name`, or null.
  const ElfSection *section(std::string_view name) const;
  // A section's bytes, at most `limit` of them. Errors: the section lies
  // outside the file, is larger than `limit`, or has no file contents.
  Result<std::string> contents(const ElfSection &section, uint64_t limit) const;
  // `size` bytes at file offset `offset`; nullopt when they are not all in the file.
  std::optional<std::string> read(uint64_t offset, uint64_t size) const;

  // The file offset of link-time `address`, when a loadable segment allowing
  // `use` holds it in its file contents (not in its zero-filled tail).
  std::optional<uint64_t> file_offset(uint64_t address, SegmentUse use) const;

  // The address of the first symbol named `name` (.symtab, then .dynsym),
  // or nullopt. The tables are read once, bounded by the file's size.
  std::optional<uint64_t> symbol_address(std::string_view name) const;

 private:
  ElfImage() = default;
  Status read_headers();
  void read_symbols() const;

  std::string path_;
  UniqueFd fd_;
  uint64_t file_size_ = 0;
  uint16_t machine_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
  mutable std::optional<std::vector<std::pair<std::string, uint64_t>>> symbols_;
};

}  // namespace kpp::sdt
