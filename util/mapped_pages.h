// Giving back the pages of a read-only file mapping (the DWARF readers'
// mappings: dwarf/elf/mapped_object.h). Peak RSS counts every page of a
// mapped file the process has touched, and the kernel maps up to 64 KiB
// around each fault from the page cache. Pages of a read-only private file
// mapping can be dropped at any time (MADV_DONTNEED): a later read maps them
// again from the page cache, with the same bytes. Only memory known to be
// such a mapping is ever dropped; a heap copy is left alone, since dropping
// heap pages would zero them.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace kpp {

// Drops the pages of `range` from this process's memory, rounded out to the
// 64 KiB windows a read fault maps (clipped to `mapping`): a neighbour's
// page still in use is only read again. A range outside `mapping` is left alone.
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

}  // namespace kpp
