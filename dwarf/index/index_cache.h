// The on-disk cache of name indexes (and of the smaller things kept beside
// them: a symbol table's sorted copy, -F's list): one file per binary under
// $XDG_CACHE_HOME/kprobe-probe/ (default ~/.cache/kprobe-probe/), named by a
// hash of the binary's identity (its build-id, else path+size+mtime).
// Files are written to a temporary name and renamed into place, so a reader
// (or a concurrent writer) sees a whole file or none; they are checked on
// open and rebuilt when anything is off; the directory is kept under a size
// bound by removing the oldest files.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "dwarf/debug_info.h"
#include "dwarf/index/name_index.h"
#include "util/result.h"

namespace kpp::dwarf {

struct CacheOptions {
  bool enabled = true;           // --no-cache clears it: build in memory, read and write nothing
  std::string directory;         // empty: $XDG_CACHE_HOME/kprobe-probe, else ~/.cache/kprobe-probe
  uint64_t max_bytes = uint64_t{1} << 30;  // the whole directory; the oldest files go first
};

// The cache directory `options` name ("" when neither XDG_CACHE_HOME nor HOME is set).
std::string cache_directory(const CacheOptions &options);

// The cache directory when this run may use it: created (mode 0700) when
// missing; else it must be a real directory (not a symbolic link) owned by
// the effective user and writable by no one else, in a parent that only its
// owner (this user or root) can rename entries of (or a sticky one, as
// /tmp). Otherwise the error says why the cache is not used (for -v): root
// must not write into, nor delete from, a directory another user controls.
Result<std::string> usable_cache_directory(const CacheOptions &options);

// The identity of the binary at `path`: its build-id when it has one.
Result<IndexKey> index_key(const std::string &path, const std::string &build_id);

// The cache file for `key` inside `directory`: ".idx" the name index,
// ".sym" a symbol table's sorted copy, ".fn" -F's list, ".units" where the
// DWARF's units start, ".dwarf" a compressed debug file inflated.
std::string cache_file(const std::string &directory, const IndexKey &key, const char *extension = ".idx");

// The index in `file`, or why it cannot be used (missing, truncated, damaged, stale).
Result<NameIndex> load_index(const std::string &file, const IndexKey &key);

// Writes `index` to `file` atomically (temporary file + rename), creating the
// directory, then trims the directory to `max_bytes`. Indexes larger than
// the bound are not written.
Status store_index(const std::string &file, const NameIndex &index, uint64_t max_bytes);

// Other cached bytes for `key` (a symbol table's sorted copy, -F's list),
// in the same directory and with the same checks as the index: the bytes,
// mapped (their checksum read with pread, so that only what a query reads
// is resident), or why the file cannot be used. Stored atomically, like the
// index.
struct CachedBytes {
  std::shared_ptr<const void> owner;  // the mapping
  std::string_view bytes;
  uint64_t file_offset = 0;  // of `bytes` in the file
};
Result<CachedBytes> load_cached(const std::string &file, const IndexKey &key);
Status store_cached(const std::string &file, const IndexKey &key, std::string_view bytes, uint64_t max_bytes);

// The checksum (ImageChecksum) of `size` bytes of `fd` from `offset`, read
// with pread(2) a chunk at a time: checking a cache file maps none of it, so
// only the pages a query then reads count in the resident size. nullopt on
// a short read.
std::optional<uint64_t> checksum_of_file(int fd, uint64_t offset, uint64_t size);

// Writes a cache file through `write`, given a new empty file open for
// reading and writing, atomically as the others (temporary file + rename);
// then trims the directory to `max_bytes`. (The inflated DWARF of a
// compressed debug file is written this way, in pieces, never whole in memory.)
Status store_written(const std::string &file, uint64_t max_bytes, const std::function<Status(int fd)> &write);

// The index for `key`: from the cache when a valid file is there, else from
// `build()`, stored for the next run. `source` and `note` say which happened
// (and why a cache file was rejected), for -v.
struct ObtainedIndex {
  NameIndex index;
  IndexSource source = IndexSource::Built;
  std::string note;
  std::string file;  // the cache file read or written ("" with none)
};
Result<ObtainedIndex> obtain_index(const CacheOptions &options, const IndexKey &key,
                                   const std::function<Result<NameIndex>()> &build);

}  // namespace kpp::dwarf
