// The ELF symbol table, read only as far as each query needs.
//
// A vmlinux holds ~120k symbols. Copying them out and sorting them by
// address took ~15 ms and ~4,000 page faults at every open, most of a warm
// probe lookup, although one probe asks for a handful of them. Here a query
// walks the entries (~0.5 ms), read with pread(2) in batches when the table
// is in the file's mapping, so that walks leave nothing resident; a query by
// name first finds where the strings hold the name (one search), then the
// entries that point there. The tables sorted by address and by name hash
// are made once the walks would cost more than sorting. They are not
// cached: a sorted copy read from a file would have to be checked against
// the whole table (an entry left out hides a symbol), which costs what
// making it does (issue 12 item 3).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <llvm/Object/ObjectFile.h>

#include "dwarf/elf/section_layout.h"
#include "dwarf/elf/symbol_entries.h"

namespace kpp::dwarf {

struct ElfSymbol {
  std::string_view name;  // in the symbol table's strings (the object file stays mapped)
  // The symbol's version ("GLIBC_2.14"): after the '@' or "@@" of a .symtab
  // name, from .gnu.version for a .dynsym entry; empty when unversioned.
  std::string_view version;
  uint64_t address = 0;
  uint64_t size = 0;
  uint64_t section = 0;  // ELF section index (kernel probes anchor within one section)
  bool function = false;
};

class SymbolTable {
 public:
  SymbolTable() = default;
  // The first SHT_SYMTAB (or, for Dynamic, SHT_DYNSYM, with the versions
  // .gnu.version gives) of `object`: nothing when it has none, or one that
  // does not fit in the file. `layout` gives a .ko's section bases; both
  // must outlive the table.
  SymbolTable(const llvm::object::ObjectFile &object, const SectionLayout &layout,
              SymbolSection which = SymbolSection::Static);

  // Whether there is at least one function symbol (a stripped program has none).
  bool has_functions() const;
  // Whether a symbol of any type is named `name`.
  bool contains(std::string_view name);
  // The function symbols whose name, or source name (compiler suffixes cut:
  // "walk.isra.0" for "walk"), is `name`, by address. A versioned `name`
  // ("memcpy@GLIBC_2.14", "@@" alike) is a symbol of that source name and
  // version.
  std::vector<ElfSymbol> functions_named(std::string_view name);
  // The address of the first symbol of any type (NOTYPE section markers
  // included) named each of `names`; nullopt for those not there.
  std::vector<std::optional<uint64_t>> first_addresses(const std::vector<std::string_view> &names);
  // The function or data symbol that contains `address` (among aliases, the
  // first in the table), and the offset into it.
  std::optional<std::pair<std::string_view, uint64_t>> symbolize(uint64_t address);

  // The source names of the function symbols ("walk" for "walk.isra.0"),
  // in table order, with repeats: for -F, which needs no addresses.
  std::vector<std::string_view> function_source_names() const;
  // The function symbols sorted by address (aliases in table order); made
  // on first use.
  const std::vector<ElfSymbol> &functions();

  // Makes the lookups of single symbols (by name or address, once sorted)
  // read the table and its strings from the file at `path` with pread(2),
  // when `mapping` (the object's bytes, mapped from that file) holds them:
  // each read through the mapping would make the kernel map 64 KiB around
  // it, most of a return probe's resident size. Walks still read the mapping.
  void read_lookups_from(const std::string &path, std::string_view mapping) { table_.read_lookups_from(path, mapping); }

 private:
  using Raw = SymbolEntries::Raw;
  // A function or data symbol at its address (Thumb bit cleared, a .ko's
  // section base added); nullopt for other symbols and those without one.
  std::optional<ElfSymbol> accept(const Raw &raw) const;
  // symbolize()'s answer when `best` is the last symbol starting at or below `address`.
  static std::optional<std::pair<std::string_view, uint64_t>> symbol_covering(const std::optional<ElfSymbol> &best,
                                                                              uint64_t address);
  std::optional<uint64_t> address_of(const Raw &raw) const;  // accept()'s address, the name not measured
  void sort();  // by_address_
  // One more query answered by a walk: past a few, sorting once is cheaper.
  bool walk_instead_of_sort();

  SymbolEntries table_;
  const SectionLayout *layout_ = nullptr;
  int walks_ = 0;
  bool sorted_ = false;
  // Once sorted, as (key, table index) pairs ordered by key then index:
  // the function and data symbols by address, and (made when a name is
  // first asked for) every named symbol by a hash of its name (a function
  // also by its source name's).
  struct Slot {
    uint64_t key;
    uint32_t index;
    uint32_t unused;
  };
  std::vector<Slot> by_address_, by_name_;
  size_t first_not_below(std::span<const Slot> table, uint64_t key) const;  // binary search by key
  static uint64_t name_hash(std::string_view name);
  std::vector<uint32_t> with_name_hash(std::string_view name);  // table indexes, by_name_
  std::vector<uint32_t> named_exactly(std::string_view name);   // in table order
  void add_names(const Raw &raw, std::vector<Slot> &by_name) const;
  void sort_names();  // by_name_, made after sort()
  bool names_sorted_ = false;
  std::optional<std::vector<ElfSymbol>> functions_;  // functions(), made from by_address_
  // What walks answered before: one probe asks about the same names and
  // addresses several times (its body, then whether the name is held twice;
  // its site symbolized for the check, the event name and the place), and
  // each walk reads the whole table (~3 MB on a vmlinux).
  std::map<std::string, std::vector<ElfSymbol>, std::less<>> named_before_;  // functions_named()
  std::map<uint64_t, std::optional<std::pair<std::string_view, uint64_t>>> symbolized_before_;  // symbolize()
  std::map<std::string, std::optional<uint64_t>, std::less<>> first_address_before_;  // first_addresses()
};

}  // namespace kpp::dwarf
