#include "dwarf/index/function_index.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <thread>

#include "dwarf/index/index_cache.h"
#include "dwarf/raw/raw_line_header.h"
#include "dwarf/raw/raw_unit.h"
#include "util/mapped_pages.h"

namespace kpp::dwarf {

namespace {

// Each byte search reads all of .debug_info (~25 ms on a vmlinux); past a
// few names one scan of every unit (~300 ms) answers all the rest at once.
constexpr size_t kSearchesBeforeScan = 12;

unsigned threads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::vector<IndexedDie> look_up(const NameIndex &index, const std::string &name, bool instances) {
  std::vector<IndexedDie> entries = index.lookup(name);
  if (instances) {
    std::vector<IndexedDie> more = index.lookup_prefix(name + "<");
    entries.insert(entries.end(), more.begin(), more.end());
  }
  return entries;
}

// The functions of `functions` named `name` (with `instances`, also
// `name<...>`), indexed alone: the others are let go before their names
// would be copied (reading much of .debug_str).
NameIndex index_of(const std::vector<ScannedFunction> &functions, const std::string &name, bool instances) {
  ScanResult picked;
  std::string instance_prefix = name + "<";
  for (const ScannedFunction &f : functions)
    if (f.name == name || (instances && f.name.starts_with(instance_prefix))) picked.functions.push_back(f);
  return NameIndex::build(picked, IndexKey{});
}

}  // namespace

std::optional<FunctionIndex::Found> FunctionIndex::find(const std::string &name, bool instances) {
  const NameIndex *index = searches() ? searched(name, instances) : whole_file();
  if (!index) return std::nullopt;
  Found found{look_up(*index, name, instances), from_cache(index)};
  // A cached index that knows no such name: the byte search confirms (a
  // crafted index could leave a function out), at its cost, on misses only.
  if (found.cached && found.dies.empty()) {
    index = searched(name, instances);
    if (from_cache(index)) return std::nullopt;  // DWARF the search cannot answer for: every unit is walked
    found = {look_up(*index, name, instances), false};
  }
  return found;
}

std::optional<FunctionIndex::Units> FunctionIndex::units_naming(const std::string &file, bool search) {
  if ((search || searches()) && !last_path_component(file).empty())
    if (auto offsets = units_searched_for(file)) return Units{std::move(*offsets), false};
  if (search) return std::nullopt;
  const NameIndex *index = whole_file();
  auto offsets = index ? index->units_naming(file) : std::nullopt;
  if (!offsets) return std::nullopt;
  return Units{std::move(*offsets), from_cache(index)};
}

void FunctionIndex::distrust(const std::string &why) {
  distrusted_ = "index: " + cache_file_ + ": " + why + "; not trusted, removed, made again";
  if (!cache_file_.empty()) ::unlink(cache_file_.c_str());
  whole_.reset();
  source_ = IndexSource::None;
  note_.clear();
}

bool FunctionIndex::searches() const {
  return !whole_ && !options_.use_cache && options_.use_index && target_.raw_readable;
}

const NameIndex *FunctionIndex::searched(const std::string &name, bool instances) {
  if (!target_.raw_readable) return whole_file();
  std::string key = instances ? name + "<" : name;
  if (auto it = searched_.find(key); it != searched_.end()) return &it->second;
  if (searched_.size() >= kSearchesBeforeScan) return whole_file();
  DwarfBytes bytes = dwarf_.raw_dwarf();
  if (!unit_spans_) unit_spans_ = dwarf_.unit_spans();
  MappedFile file = dwarf_.searched_file();
  std::optional<std::vector<uint64_t>> units;
  if (!every_unit_) {
    // The name and its instances' ("max<...>") in one pass.
    std::vector<NameSpelling> spellings{{name, false}};
    if (instances) spellings.push_back({name + "<", true});
    units = units_that_may_name(bytes, *unit_spans_, spellings, threads(), file);
  }
  if (!units) {
    // DWARF the search cannot answer for (an LTO file's units name each
    // other's DIEs): every unit is scanned, once, and each name's functions
    // are picked from that scan. Sorting all of the file's names into an
    // index (python3.11: 62,000 functions, ~7 ms) pays only when it is kept
    // in the cache, or after a dozen names.
    const Result<ScanResult> &all = every_unit();
    if (!all) return whole_file();  // which says why, and the LLVM walk answers
    search_note_ = "index: not used (--no-cache); '" + name + "' looked for in a scan of every unit";
    return &searched_.emplace(key, index_of(all->functions, name, instances)).first->second;
  }
  std::sort(units->begin(), units->end());
  units->erase(std::unique(units->begin(), units->end()), units->end());
  // Each unit's pages go back once scanned (and its line table header's and
  // abbreviations'), so that they do not all count at once.
  auto scanned = scan_functions_in(bytes, *units, threads(), [&](std::string_view read) { drop_pages(file.mapping, read); });
  std::optional<NameIndex> index;
  if (scanned) index = index_of(scanned->functions, name, instances);
  // Then the names they led to. The other units' header pages stay mapped
  // (map_unit_headers_alone: dropped, they would come back 64 KiB at a
  // time). What is read later is mapped again, with the same bytes.
  for (std::string_view read : {bytes.str, bytes.line_str}) drop_pages(file.mapping, read);
  if (!index) return whole_file();
  search_note_ = "index: not used (--no-cache); '" + name + "' looked for in the " + std::to_string(units->size()) +
                 " of " + std::to_string(unit_spans_->size()) + " units that name it";
  return &searched_.emplace(key, std::move(*index)).first->second;
}

std::optional<std::vector<uint64_t>> FunctionIndex::units_searched_for(const std::string &file) {
  std::string_view component = last_path_component(file);
  DwarfBytes bytes = dwarf_.raw_dwarf();
  if (!unit_spans_) unit_spans_ = dwarf_.unit_spans();
  auto positions = line_positions_naming(bytes, *unit_spans_, component, threads(), dwarf_.searched_file());
  if (!positions) return std::nullopt;
  // Line tables lie one after another: a position belongs to the table
  // with the greatest offset at or before it (a unit's DW_AT_stmt_list).
  // (LLVM's unit DIEs would read each unit's range and location list
  // headers too: ~100 MB of pages on a vmlinux.)
  std::vector<uint64_t> unit_offsets;
  for (const UnitSpan &unit : *unit_spans_) unit_offsets.push_back(unit.offset);
  std::vector<std::pair<uint64_t, uint64_t>> tables = unit_line_tables(bytes, unit_offsets);  // (table, unit)
  std::sort(tables.begin(), tables.end());
  std::set<uint64_t> units;
  for (uint64_t at : *positions) {
    auto after = std::upper_bound(tables.begin(), tables.end(), std::make_pair(at, UINT64_MAX));
    if (after == tables.begin()) continue;
    uint64_t table = std::prev(after)->first;
    for (auto it = std::prev(after); it->first == table; --it) {
      units.insert(it->second);
      if (it == tables.begin()) break;
    }
  }
  search_note_ = "index: not used (--no-cache); the line tables of " + std::to_string(units.size()) + " of " +
                 std::to_string(tables.size()) + " units name '" + std::string(component) + "'";
  return std::vector<uint64_t>(units.begin(), units.end());
}

const NameIndex *FunctionIndex::whole_file() {
  if (whole_) return &*whole_;
  if (!note_.empty()) return nullptr;  // tried and failed: the LLVM walk answers
  if (!options_.use_index) {
    note_ = "index: not used (asked not to)";
    return nullptr;
  }
  // A relocatable object's DWARF needs its relocations applied (LLVM does);
  // the raw scan reads little-endian data only.
  if (!target_.raw_readable) {
    note_ = "index: not used for a relocatable or big-endian object";
    return nullptr;
  }
  // Split units (-gsplit-dwarf) are read from their .dwo files or .dwp.
  const SplitUnits &split = split_units();
  auto key = index_key(target_.path, target_.build_id);
  if (!key) {
    note_ = "index: " + key.error().message;
    return nullptr;
  }
  // An index made while some .dwo files were missing must not be used once
  // they are there (nor the other way round).
  if (split.skeletons > 0)
    key->identity += " split:" + std::to_string(split.units.size()) + "/" + std::to_string(split.skeletons);
  CacheOptions cache;
  // A cached index that was contradicted is not read again: this run
  // builds its own (in memory: the DWARF it came from may be a crafted
  // .dwarf image, whose index must not outlive it) and the file is gone.
  cache.enabled = options_.use_cache && distrusted_.empty();
  cache.directory = options_.cache_directory;
  auto obtained = obtain_index(cache, *key, [&]() -> Result<NameIndex> {
    const Result<ScanResult> &all = every_unit();
    if (!all) return all.error();
    return NameIndex::build(*all, *key);
  });
  dwarf_.drop_mapped_pages();
  if (!obtained) {
    note_ = "index: " + obtained.error().message + "; scanning with LLVM";
    return nullptr;  // a scan that failed is kept: searched() does not scan again
  }
  every_unit_.reset();  // the index holds what queries need of it
  source_ = obtained->source;
  note_ = distrusted_.empty() ? obtained->note : distrusted_ + "\n  " + obtained->note;
  cache_file_ = obtained->file;
  whole_ = std::move(obtained->index);
  return &*whole_;
}

const FunctionIndex::SplitUnits &FunctionIndex::split_units() {
  if (!split_units_) {
    // Made whole, not emplace()d: clang 14 takes a nested struct with
    // member initializers for not default-constructible inside its class.
    SplitUnits made;
    made.units = dwarf_.split_unit_bytes(made.skeletons);
    split_units_ = std::move(made);
  }
  return *split_units_;
}

const Result<ScanResult> &FunctionIndex::every_unit() {
  if (!every_unit_) {
    DwarfBytes bytes = dwarf_.raw_dwarf();
    // The scan reads all of .debug_info once: the pages it has read go back
    // every few MB (one call for many units: a call per unit costs ~10% of
    // the scan's time in TLB flushes), so that they do not all count at once.
    BatchedDrop drop(dwarf_.searched_file().mapping, 8 << 20);
    every_unit_.emplace(
        scan_functions(bytes, split_units().units, threads(), [&drop](std::string_view done) { drop.done(done.size()); }));
    // The workers' malloc arenas keep the per-unit vectors they freed: give them back.
    malloc_trim(0);
    dwarf_.drop_mapped_pages();
  }
  return *every_unit_;
}

}  // namespace kpp::dwarf
