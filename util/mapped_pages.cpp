// Giving back the pages of a read-only file mapping (mapped_pages.h).
#include "util/mapped_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace kpp {

void drop_pages(std::string_view mapping, std::string_view range) {
  if (mapping.empty() || range.empty()) return;
  auto begin = reinterpret_cast<uintptr_t>(range.data()), end = begin + range.size();
  auto map_begin = reinterpret_cast<uintptr_t>(mapping.data()), map_end = map_begin + mapping.size();
  if (begin < map_begin || end > map_end) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // A read fault maps the aligned 64 KiB window around it (fault-around):
  // reading `range` mapped its neighbours' pages too, and a walk that gave
  // back only its own pages kept ~75 MB of a vmlinux's .debug_info mapped.
  constexpr uintptr_t window = 64 << 10;
  // The mapping starts on a page; its last page may be partial (the kernel
  // maps it whole), so rounding up stays inside the mapping's pages.
  begin = std::max(begin & ~(window - 1), map_begin);
  end = std::min((end + window - 1) & ~(window - 1), (map_end + page - 1) & ~(page - 1));
  madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace kpp
