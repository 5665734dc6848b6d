// The DWARF's file with its compressed sections inflated, when it has any
// (dwarf/elf/inflated_image.h writes it): a file in the cache, made once and
// read by later runs after its checksum is checked, or a memfd with
// --no-cache (or when the cache cannot take it). One job, the copy: made
// on first use of the DWARF, kept open while the DWARF is read, removed
// from the cache when a later check finds it damaged. Part of DwarfFiles
// (dwarf_files.h); private to dwarf/.
#pragma once

#include <string>
#include <string_view>

#include <llvm/Object/ObjectFile.h>

#include "dwarf/elf/inflated_image.h"
#include "dwarf/elf/mapped_object.h"
#include "util/unique_fd.h"

namespace kpp::dwarf {

struct CacheHome;  // dwarf_files.h

class InflatedCopy {
 public:
  // Makes the copy of `elf` (the DWARF's whole file, mapped at
  // `source_mapping`, whose pages are given back once read), which
  // inflated_layout() gives `layout`: the cached one in `home` (null: no
  // cache) when it has that layout, else written there, else into a memfd
  // (without `reads_locations`, the location lists left out). Nothing when
  // no copy can be written: then LLVM inflates the sections itself.
  void make(std::string_view elf, const InflatedLayout &layout, std::string_view source_mapping, const CacheHome *home,
            bool reads_locations);

  // The copy's object, null when there is none.
  const llvm::object::ObjectFile *object() const { return copy_.binary.getBinary(); }
  std::string_view mapping() const { return copy_.mapping; }  // its bytes when file-mapped
  const std::string &path() const { return path_; }          // "" when there is none
  // Whether the copy is the cache's file, which a crafted file could
  // replace after a verdict on the first reading.
  bool is_cached() const { return !path_.empty() && !memory_.valid(); }
  // Removes a damaged cached copy: whether it was removed.
  bool remove_from_cache() const;

 private:
  bool adopt(const std::string &file);  // maps `file` as the copy

  MappedObject copy_;
  std::string path_;
  UniqueFd memory_;  // the memfd holding the copy, with --no-cache
};

}  // namespace kpp::dwarf
