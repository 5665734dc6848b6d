// The name index: every function name with code in a binary's DWARF, to the
// DIEs of its out-of-line bodies and inlined copies. Built once from a full
// scan (die_scan.h), kept as one flat byte image that is the cache file's
// format too, so a cached index is used straight from its memory mapping.
//
// Image layout (little-endian, all offsets from the start):
//   Header                          magic, version, key, sizes, checksum of the rest
//   NameRecord[name_count]          function names, sorted
//   NameRecord[file_count]          last path components of the files units name, sorted
//   uint64_t entries[entry_count]   DIE offset, bit 63 set for an inlined copy
//   uint64_t units[unit_entry_count]  unit offsets (.debug_info), grouped by file
//   char strings[strings_size]      the names, not NUL-terminated
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dwarf/raw/die_scan.h"
#include "util/result.h"

namespace kpp::dwarf {

// The checksum of cache images (this index, index_cache.h's other files):
// catches a truncated or damaged file, not an adversary. Fed in pieces
// (a file read a chunk at a time), it sums as the whole at once.
class ImageChecksum {
 public:
  explicit ImageChecksum(uint64_t size);  // the size of everything to come
  void update(const uint8_t *data, size_t size);
  uint64_t finish() const;

 private:
  void block(const uint8_t *p);
  uint64_t lane_[4];
  uint8_t pending_[32] = {};
  size_t pending_size_ = 0;
};
uint64_t image_checksum(const uint8_t *data, size_t size);

struct IndexedDie {
  uint64_t die_offset = 0;
  bool inlined = false;
};

// What an image must match to be used for a given binary.
struct IndexKey {
  std::string identity;     // "build-id:<hex>", or "file:<path>:<size>:<mtime>" when there is none
  uint64_t target_size = 0; // the binary's size, checked even with a build-id
};

class NameIndex {
 public:
  // 2: C++ methods named through their class; 3: units' files (or split units, on h-splitdw);
  // 4: both, split units' DIEs by handle (split_handle.h) and skeletons' files;
  // 5: a four-lane checksum
  static constexpr uint32_t kVersion = 5;

  // Builds the image from a scan.
  static NameIndex build(const ScanResult &scan, const IndexKey &key);
  // Uses `size` bytes at `data` (kept alive by `owner`) after checking them:
  // magic, version, key, that every table fits, and the checksum (of the
  // bytes after the header: `checksum_of_rest` when the caller has summed
  // them from the file, so that checking maps none of them). Errors say
  // which check failed; the caller rebuilds.
  static Result<NameIndex> adopt(std::shared_ptr<const void> owner, const uint8_t *data, size_t size,
                                 const IndexKey &key, std::optional<uint64_t> checksum_of_rest = std::nullopt);
  static constexpr size_t kHeaderSize = 264;  // the bytes before the summed ones

  // The DIEs of the functions named `name`, by offset.
  std::vector<IndexedDie> lookup(std::string_view name) const;
  // The DIEs of every function whose name starts with `prefix` ("max<" finds max<int>, max<long>).
  std::vector<IndexedDie> lookup_prefix(std::string_view prefix) const;
  // The offsets of the units whose line tables name a file whose last path
  // component is `file`'s (a superset of the units that hold `file`: the
  // caller still matches whole paths), sorted; nullopt when `file` has no
  // last component to look for (every unit must be read).
  std::optional<std::vector<uint64_t>> units_naming(std::string_view file) const;
  size_t name_count() const;
  size_t entry_count() const;

  // The whole image, for writing to the cache.
  std::string_view bytes() const { return {reinterpret_cast<const char *>(data_), size_}; }

 private:
  std::vector<IndexedDie> lookup_range(std::string_view key, bool prefix) const;

  NameIndex(std::shared_ptr<const void> owner, const uint8_t *data, size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}

  std::shared_ptr<const void> owner_;  // a heap buffer or a file mapping
  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kpp::dwarf
