// The one place that decides how a whole-file question is answered: where
// the DIEs of the functions named X are, and which units' line tables name
// a source file. The symbol table finds out-of-line bodies by itself
// (dwarf/query/functions.cpp); inlined copies, functions without a symbol and
// SRC:LINE need this, and it answers, cheapest first:
//
//  - with the cache, from the whole file's index (dwarf/index/name_index.h): read
//    in ~1 ms, or built once by the parallel scan of every unit and cached;
//  - with --no-cache, by a byte search (dwarf/index/name_search.h) for the few
//    units that may name X, whose DIEs alone are scanned; where the search
//    cannot tell (LTO), from one scan of every unit, kept for the run; past
//    a dozen names the whole file's index answers all the rest;
//  - not at all (nullopt) when neither can read this DWARF: a relocatable
//    object or big-endian data (the raw scan reads neither), a unit the
//    scan refuses, or --no-index. The caller then walks every unit with LLVM.
//
// A cached index is a file that another run wrote, possibly someone else's
// crafted one (issue 12 item 3): answers from it say so (`cached`), the
// caller checks each DIE they name and calls distrust() when one is not as
// said; a name or file it does not know is confirmed by the byte search.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dwarf/debug_info.h"
#include "dwarf/index/name_index.h"
#include "dwarf/index/name_search.h"
#include "dwarf/raw/die_scan.h"

namespace kpp::dwarf {

// What the index reads of the DWARF it indexes: its parts give it
// (dwarf/query/index_inputs.h), not the LlvmDebugInfo that owns the index.
class IndexedDwarf {
 public:
  virtual ~IndexedDwarf() = default;
  // The raw sections the scans and searches read.
  virtual DwarfBytes raw_dwarf() = 0;
  // The DWARF's file for pread(2) searches, and the mapping its sections are in.
  virtual MappedFile searched_file() = 0;
  // Where every unit of .debug_info lies, in order.
  virtual std::vector<UnitSpan> unit_spans() = 0;
  // Every split unit's bytes (-gsplit-dwarf); `skeletons` counts the skeleton units.
  virtual std::vector<SplitUnitBytes> split_unit_bytes(size_t &skeletons) = 0;
  // Gives back the pages of the mappings read so far (after a scan of every unit).
  virtual void drop_mapped_pages() = 0;
};

class FunctionIndex {
 public:
  // The binary the index is of (the cache's key), and whether the raw scan
  // can read its DWARF at all (a linked, little-endian file).
  struct Target {
    std::string path;
    std::string build_id;
    bool raw_readable = false;
  };
  FunctionIndex(IndexedDwarf &dwarf, Target target, OpenOptions options)
      : dwarf_(dwarf), target_(std::move(target)), options_(std::move(options)) {}

  // The subprograms and inlined copies named `name` (with `instances`, also
  // `name<...>`: a template's instances), of both kinds: the caller keeps
  // those it asked for. nullopt: no index answers here (walk every unit).
  struct Found {
    std::vector<IndexedDie> dies;
    bool cached = false;  // from a cache file: check each DIE, distrust() when one is not as said
  };
  std::optional<Found> find(const std::string &name, bool instances);

  // The offsets of the units whose line tables may name `file` (a path
  // suffix). `search`: by the byte search whatever the cache (to confirm a
  // cached answer that found nothing). nullopt: every unit may.
  struct Units {
    std::vector<uint64_t> offsets;
    bool cached = false;  // from a cache file: each must be a unit's start, else distrust()
  };
  std::optional<Units> units_naming(const std::string &file, bool search = false);

  // A cached answer was contradicted by the DWARF: the cache file is
  // deleted and this run builds its own index (in memory) on the next query.
  void distrust(const std::string &why);

  IndexSource source() const { return source_; }
  // What -v says about how the last queries were answered.
  std::string note() const { return note_.empty() ? search_note_ : note_; }

 private:
  // The whole file's index, built or read from the cache on first use (null: none can be made).
  const NameIndex *whole_file();
  // Whether queries search bytes instead of making the whole file's index (--no-cache).
  bool searches() const;
  // An index of the units that may name `name` (else the whole file's).
  const NameIndex *searched(const std::string &name, bool instances);
  // With searches(): the units whose line tables may name `file`, by a search of .debug_line.
  std::optional<std::vector<uint64_t>> units_searched_for(const std::string &file);
  // Every unit's functions and files (split units' too), scanned once:
  // whole_file() indexes them, searched() picks a name's functions from
  // them when the byte search cannot say which units name it.
  const Result<ScanResult> &every_unit();
  struct SplitUnits {
    std::vector<SplitUnitBytes> units;
    size_t skeletons = 0;
  };
  const SplitUnits &split_units();
  bool from_cache(const NameIndex *index) const {
    return index && whole_ && index == &*whole_ && source_ == IndexSource::Cache;
  }

  IndexedDwarf &dwarf_;
  const Target target_;
  const OpenOptions options_;
  std::optional<NameIndex> whole_;
  std::optional<Result<ScanResult>> every_unit_;  // until whole_ is made from it
  std::optional<SplitUnits> split_units_;
  std::map<std::string, NameIndex> searched_;  // searched()'s, by name ("name<" with instances)
  std::optional<std::vector<UnitSpan>> unit_spans_;
  IndexSource source_ = IndexSource::None;
  std::string note_;          // how the whole file's index was made, or why it could not be
  std::string search_note_;   // what the last byte search read
  std::string cache_file_;    // the file whole_ came from or went to
  std::string distrusted_;    // why a cached index was made again
};

}  // namespace kpp::dwarf
