// A symbol table's entries and strings as the file holds them (private to
// dwarf/elf; SymbolTable, symbol_table.h, answers the questions): read where
// they are mapped, converted once when the table is not in ELF64LE layout,
// or, once read_lookups_from() names the file, with pread(2), so that walks
// and single lookups leave nothing resident.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/Object/ObjectFile.h>

#include "util/unique_fd.h"

namespace llvm::object {
template <class ELFT>
class ELFFile;
}

namespace kpp::dwarf {

// Which of a file's symbol tables to read.
enum class SymbolSection {
  Static,   // .symtab: every symbol (gone from a stripped program)
  Dynamic,  // .dynsym: the exported ones, which stripping keeps
};

class SymbolEntries {
 public:
  // A symbol as the file holds it, its name not yet measured.
  struct Raw {
    const char *name;
    size_t name_room;  // bytes from `name` to the end of the strings
    uint32_t name_offset;  // in the strings: 0 for no name
    uint64_t value, size;
    uint8_t type;
    uint32_t section;
    uint32_t index;  // in the table
    std::string_view name_view() const;
  };

  SymbolEntries() = default;
  // The first SHT_SYMTAB (or, for Dynamic, SHT_DYNSYM, with the versions
  // .gnu.version gives) of `object`: nothing when it has none, or one that
  // does not fit in the file. `object` must outlive this.
  SymbolEntries(const llvm::object::ObjectFile &object, SymbolSection which);

  size_t count() const { return entry_count_; }
  uint16_t machine() const { return machine_; }
  // Calls `visit` on each entry in table order until it returns false
  // (a template, so that the walk's loop inlines the visitor).
  // With the file (read_lookups_from()), the entries are read with pread
  // a batch at a time, and the walks read no name they do not need:
  // a walk through the mapping left ~5 MB of a vmlinux's table resident.
  template <class Visit>
  void walk(Visit &&visit) const {
    std::vector<Entry> batch(file_.valid() ? kBatch : 0);
    for (size_t first = 0; first < entry_count_; first += kBatch) {
      size_t n = std::min(kBatch, entry_count_ - first);
      const Entry *entries = entries_ + first;
      if (file_.valid()) {
        if (!read_entries(first, n, batch.data())) return;
        entries = batch.data();
      }
      for (size_t i = 0; i < n; ++i) {
        const Entry &e = entries[i];
        if (e.name >= strings_.size()) continue;
        Raw raw{strings_.data() + e.name, strings_.size() - e.name, e.name, e.value, e.size,
                static_cast<uint8_t>(e.info & 0xf), e.section, static_cast<uint32_t>(first + i)};
        if (!visit(raw)) return;
      }
    }
  }
  Raw raw_at(uint32_t index) const;     // through the mapping
  Raw looked_up(uint32_t index) const;  // with pread when read_lookups_from() set the file
  // A walk's `raw` with its name read, when the walk did not read it.
  Raw named(const Raw &raw) const { return file_.valid() ? looked_up(raw.index) : raw; }
  // The symbol's version ("GLIBC_2.14"), empty when unversioned.
  std::string_view version_of(const Raw &raw) const;
  // For each of `names`, the string offsets where the strings hold it
  // followed by one of `ends` (a symbol may point into the middle of a
  // longer string: the linker merges tails), sorted; one pread pass over
  // the strings for all of them.
  std::vector<std::vector<uint32_t>> offsets_of(const std::vector<std::string_view> &names,
                                               std::string_view ends) const;
  // Makes the lookups and walks read the table and its strings from the
  // file at `path` with pread(2), when `mapping` (the object's bytes,
  // mapped from that file) holds them.
  void read_lookups_from(const std::string &path, std::string_view mapping);

 private:
  // An entry in ELF64's layout: a little-endian 64-bit table is read where
  // it is mapped, others are converted once.
  struct Entry {
    uint32_t name;
    uint8_t info;
    uint8_t other;
    uint16_t section;
    uint64_t value;
    uint64_t size;
  };
  static_assert(sizeof(Entry) == 24);
  static constexpr size_t kBatch = 2048;  // entries per pread (48 KB)
  bool read_entries(size_t first, size_t count, Entry *into) const;
  template <class ELFT>
  void read_table(const llvm::object::ELFFile<ELFT> &elf, unsigned section_type);

  const Entry *entries_ = nullptr;
  size_t entry_count_ = 0;
  std::vector<Entry> converted_;  // entries_ of a table not in ELF64LE layout
  std::string_view strings_;
  uint16_t machine_ = 0;
  // .dynsym's versions, by table index ("" for none), and whether each is
  // the default one (written "@@"): read once, at construction.
  std::vector<std::string> versions_;
  UniqueFd file_;
  uint64_t table_offset_ = 0, strings_offset_ = 0;  // in that file
  std::string_view mapping_;                        // the file's mapping (which holds strings_)
  mutable std::deque<std::string> names_read_;      // the names looked_up() read
};

}  // namespace kpp::dwarf
