// What an ELF file's headers claim, checked against the file before LLVM
// trusts it (issue 12 item 4: hostile debug info costs bounded time and
// memory). LLVM allocates what a compression header claims (an 18 KB file
// claiming 8 GB sections took 9.7 GB), and follows a PT_NOTE whose offset
// plus size wraps past 2^64 out of the file. Each check names the header,
// the section and the numbers that do not fit.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kpp::dwarf {

// The largest uncompressed size a compressed section may claim, per byte
// of its compressed data: zlib's deflate cannot exceed 1032:1; zstd can
// (long runs of one byte), but no debug section does (they compress 3-10:1).
inline constexpr uint64_t kMaxCompressionRatio = 1032;

// Checks `bytes`, the whole file at `path`, when it is an ELF file (other
// files are left to the object-file reader's own message):
//  - the section and program header tables lie inside the file;
//  - every section with contents (not SHT_NOBITS) and every PT_NOTE
//    segment lies inside the file, without wrapping around;
//  - a compressed section (SHF_COMPRESSED, or a GNU .zdebug_ one) claims
//    no more than kMaxCompressionRatio times its compressed bytes.
// The error names the file, the section or header, and the numbers.
// `done_with`, when given, is called with bytes the check has finished
// reading (the line tables' headers, every few MB): the caller may give
// their pages back (dwarf/elf/mapped_object.h).
Status check_elf_bounds(std::string_view bytes, const std::string &path,
                        const std::function<void(std::string_view)> &done_with = {});

}  // namespace kpp::dwarf
