// A copy of an ELF file whose compressed sections (SHF_COMPRESSED: zlib or
// zstd) are stored inflated.
//
// Debian's debug files (python3.11-dbg, libc6-dbg) compress their DWARF.
// LLVM inflates every compressed section into the heap when it makes a
// DWARFContext (~22 MB for python3.11, 64% of a `-F` that needed no DWARF):
// that cost came at every run, cache or not, and the heap copies all
// counted in the resident size. Written once into a file instead (a memfd
// with --no-cache, a cache file otherwise), the DWARF is read like that of
// an uncompressed file: mapped, only the pages a query touches resident,
// searched with pread(2); a warm run inflates nothing.
//
// Sections are inflated on up to `threads` threads, the largest first: each
// in one call of libdeflate (zlib) or zstd straight into the image's pages,
// or, beyond 64 MiB or where the file's blocks cannot be reserved, a chunk
// at a time (what is written leaves the process's memory).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "util/result.h"

namespace kpp::dwarf {

// Whether `elf` (a whole file, already through check_elf_bounds()) is a
// 64-bit little-endian ELF file with at least one SHF_COMPRESSED section
// this unit can inflate: the files make_inflated_image() accepts.
bool has_compressed_sections(std::string_view elf);

// The size of the image of `elf`, and its first bytes (ELF header), which a
// cached image must match; nullopt when `elf` has nothing to inflate.
struct InflatedLayout {
  uint64_t size = 0;
  std::string headers;  // the ELF header and the section header table, as the image has them
  uint64_t section_headers_offset = 0;
};
std::optional<InflatedLayout> inflated_layout(std::string_view elf);

// How the image is written: on how many threads, and up to what size a
// section is inflated in one call (larger ones stream through a chunk).
struct InflateOptions {
  unsigned threads = 1;
  uint64_t one_call_limit = uint64_t{64} << 20;
  // Whether the file's blocks are reserved (posix_fallocate) before pieces
  // are written through a mapping, where a full disk would raise SIGBUS.
  // A memfd has no blocks to run out of: reserving its 22 MB of pages first
  // cost python3.11 3 ms on one thread before any inflating began.
  bool reserve = true;
  // Sections left out of the image (their headers say they are empty): a
  // run that reads no location list needs no .debug_loclists, a quarter of
  // python3.11's 22 MB and of the time it takes to inflate.
  std::vector<std::string> leave_out;
};

// Writes the image of `elf` to `fd` (an empty file). Errors: data that does
// not inflate to the size its header claims, a write that fails.
Status write_inflated_image(std::string_view elf, int fd, const InflateOptions &options);

// A cached image ends with a trailer: the checksum of its bytes and of the
// identity (index_cache.h's IndexKey) of the file it was made from.
// seal_inflated_image() appends it to an image written to `fd`;
// is_inflated_image() says whether the file at `fd` is the image `layout`
// describes for `identity`: size, headers, trailer, and the checksum of all
// its bytes (read with pread(2): ~5 ms for python3.11's 24 MB), so that a
// damaged cache file is made again, never read.
Status seal_inflated_image(int fd, const InflatedLayout &layout, std::string_view identity);
bool is_inflated_image(int fd, const InflatedLayout &layout, std::string_view identity);

}  // namespace kpp::dwarf
