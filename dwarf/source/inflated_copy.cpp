// The DWARF's inflated copy, from the cache or made (inflated_copy.h).
#include "dwarf/source/inflated_copy.h"

#include <algorithm>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dwarf/index/index_cache.h"
#include "dwarf/source/dwarf_files.h"

namespace kpp::dwarf {

bool InflatedCopy::adopt(const std::string &file) {
  auto object = open_mapped_object(file);
  if (!object) return false;
  copy_ = std::move(*object);
  path_ = file;
  return true;
}

void InflatedCopy::make(std::string_view elf, const InflatedLayout &layout, std::string_view source_mapping,
                        const CacheHome *home, bool reads_locations) {
  InflateOptions options;
  options.threads = std::max(1u, std::thread::hardware_concurrency());
  // A cached image (made by an earlier run) when it has the layout this file's headers give.
  if (home) {
    IndexKey key = home->key;
    key.identity += " inflated v1";
    std::string file = cache_file(home->directory, key, ".dwarf");
    UniqueFd cached(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (cached.valid() && is_inflated_image(cached.get(), layout, key.identity) && adopt(file)) return;
    Status stored = store_written(file, home->max_bytes, [&](int fd) -> Status {
      if (Status written = write_inflated_image(elf, fd, options); !written) return written;
      return seal_inflated_image(fd, layout, key.identity);
    });
    drop_pages(source_mapping, source_mapping);
    if (stored && adopt(file)) return;
  }
  // Without the cache: in memory, but not in the process's (a memfd's pages
  // count only where they are mapped and read).
  UniqueFd memory(memfd_create("kpp-inflated-dwarf", MFD_CLOEXEC));
  InflateOptions in_memory = options;
  in_memory.reserve = false;
  if (!reads_locations) in_memory.leave_out = {".debug_loclists", ".debug_loc"};
  if (!memory.valid() || !write_inflated_image(elf, memory.get(), in_memory)) return;  // LLVM inflates, as before
  drop_pages(source_mapping, source_mapping);
  if (adopt("/proc/self/fd/" + std::to_string(memory.get()))) memory_ = std::move(memory);
}

bool InflatedCopy::remove_from_cache() const { return is_cached() && ::unlink(path_.c_str()) == 0; }

}  // namespace kpp::dwarf
