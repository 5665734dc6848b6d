// Object files kept in a read-only file mapping, and giving their pages back
// (util/mapped_pages.h).
//
// Peak RSS counts every page of a mapped file the process has touched (and
// the kernel maps up to 64 KiB around each fault from the page cache). LLVM
// reads every unit header of a vmlinux at open, and the index scan reads all
// of .debug_info: left mapped, those pages are most of our RSS (~110 MB of a
// 590 MB vmlinux for one function probe). Pages of a read-only private file
// mapping can be dropped at any time (MADV_DONTNEED): a later read maps them
// again from the page cache, with the same bytes (a page written with the
// bytes it had, below, too). Only memory known to be
// such a mapping is ever dropped; a heap copy (a small file, a decompressed
// section) is left alone, since dropping heap pages would zero them.
#pragma once

#include <cstdint>
#include <string>
#include <span>
#include <string_view>
#include <vector>

#include <llvm/Object/ObjectFile.h>

#include "util/mapped_pages.h"
#include "util/result.h"

namespace kpp::dwarf {

struct MappedObject {
  llvm::object::OwningBinary<llvm::object::ObjectFile> binary;
  std::string_view mapping;  // the file's bytes when they are a file mapping, else empty
};

// Opens the object file at `path`, mapped read-only when the file is large
// enough for LLVM to map it. Errors: unreadable, not an object file.
Result<MappedObject> open_mapped_object(const std::string &path);

// Maps the page of each unit header of `info` (a .debug_info inside
// `mapping`) alone, before LLVM reads them all, so that reading them does
// not map the 64 KiB or more the kernel maps around a read fault
// ("fault-around"): on a vmlinux (~2,170 units in 156 MB) that would be
// ~120 MB, alone it is ~9 MB. A write fault maps one page and no more: each
// header's first bytes are written back as they are (read with pread(2)),
// into a private copy of its page, the mapping writable only meanwhile.
// (Splitting the mapping into a piece per header page, as this did first,
// cost ~6 ms of madvise and munmap calls per run.) Those pages stay until
// the next drop_pages() of them.
// `known`, an earlier run's answer for the same file (the cache keeps it),
// saves reading ~2,170 headers one pread at a time. Returns the units'
// offsets in `info` and their first four bytes.
struct UnitStart {
  uint64_t offset;
  uint32_t first_word;  // the unit's first bytes when found (kept in .units files; not trusted)
  uint32_t unused;
};
std::vector<UnitStart> map_unit_headers_alone(const std::string &path, std::string_view mapping, std::string_view info,
                                              std::span<const UnitStart> known = {});

}  // namespace kpp::dwarf
