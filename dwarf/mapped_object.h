// Object files kept in a read-only file mapping, and giving their pages back.
//
// Peak RSS counts every page of a mapped file the process has touched (and
// the kernel maps up to 64 KiB around each fault from the page cache). LLVM
// reads every unit header of a vmlinux at open, and the index scan reads all
// of .debug_info: left mapped, those pages are most of our RSS (~110 MB of a
// 590 MB vmlinux for one function probe). Pages of a read-only private file
// mapping can be dropped at any time (MADV_DONTNEED): a later read maps them
// again from the page cache, with the same bytes. Only memory known to be
// such a mapping is ever dropped; a heap copy (a small file, a decompressed
// section) is left alone, since dropping heap pages would zero them.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include <llvm/Object/ObjectFile.h>

#include "src/util/result.h"

namespace kpp::dwarf {

struct MappedObject {
  llvm::object::OwningBinary<llvm::object::ObjectFile> binary;
  std::string_view mapping;  // the file's bytes when they are a file mapping, else empty
};

// Opens the object file at `path`, mapped read-only when the file is large
// enough for LLVM to map it. Errors: unreadable, not an object file.
Result<MappedObject> open_mapped_object(const std::string &path);

// Drops the pages of `range` (rounded out to whole pages, clipped to
// `mapping`) from this process's memory. A range outside `mapping` is left alone.
void drop_pages(std::string_view mapping, std::string_view range);

// Drops all of a mapping's pages each time readers have reported `batch`
// more bytes read through it; threads may report at once.
class BatchedDrop {
 public:
  BatchedDrop(std::string_view mapping, uint64_t batch) : mapping_(mapping), batch_(batch) {}
  void done(uint64_t bytes) {
    if ((pending_ += bytes) < batch_) return;
    pending_ = 0;
    drop_pages(mapping_, mapping_);
  }

 private:
  std::string_view mapping_;
  uint64_t batch_;
  std::atomic<uint64_t> pending_{0};
};

// Splits the mapping so that reading each unit header of `info` (a
// .debug_info inside `mapping`) maps one page, not the 64 KiB or more the
// kernel maps around a fault ("fault-around", which stops at the edges of a
// mapping's VMA): each header page gets a VMA of its own (MADV_RANDOM, a
// flag its neighbours lack, so the kernel does not merge them back). LLVM
// reads every unit header when it opens a file; on a vmlinux (~2,170 units
// in 156 MB) that maps ~100 MB, one page each makes it ~8 MB. The headers
// are found with pread(2), which maps nothing. Files with very many units
// are left as they are (a process has a bounded number of mappings).
void isolate_unit_headers(const std::string &path, std::string_view mapping, std::string_view info);

}  // namespace kpp::dwarf
