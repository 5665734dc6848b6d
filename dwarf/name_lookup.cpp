// The name index behind whole-file queries (inlined copies, functions
// without a symbol): the raw sections go to the parallel scan, and the
// result to the cache, on first use.
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "dwarf/cxx_names.h"
#include "dwarf/die_scan.h"
#include "dwarf/index_cache.h"
#include "dwarf/llvm_debug_info.h"
#include "dwarf/name_search.h"

namespace kpp::dwarf {

namespace {

constexpr size_t kSearchesBeforeScan = 12;

}  // namespace

std::string DebugInfo::display_symbol(const std::string &symbol) const {
  return demangles() ? demangle_for_display(symbol) : symbol;
}

std::optional<LlvmDebugInfo::CacheHome> LlvmDebugInfo::cache_home(const std::string &binary) const {
  CacheOptions cache;
  cache.enabled = open_options_.use_cache;
  cache.directory = open_options_.cache_directory;
  if (!cache.enabled) return std::nullopt;
  auto directory = usable_cache_directory(cache);
  if (!directory) {
    cache_refused_ = "cache not used: " + directory.error().message;
    return std::nullopt;
  }
  auto key = index_key(binary, build_id_);
  if (!key) return std::nullopt;
  return CacheHome{*directory, *key, cache.max_bytes};
}

DwarfBytes LlvmDebugInfo::raw_dwarf() {
  // The sections as they are: reading them makes LLVM read no unit header.
  const llvm::DWARFObject &objects = context().getDWARFObj();
  DwarfBytes bytes;
  objects.forEachInfoSections([&](const llvm::DWARFSection &s) {
    if (bytes.info.empty()) bytes.info = std::string_view(s.Data.data(), s.Data.size());
  });
  bytes.abbrev = std::string_view(objects.getAbbrevSection().data(), objects.getAbbrevSection().size());
  bytes.str = std::string_view(objects.getStrSection().data(), objects.getStrSection().size());
  bytes.line_str = std::string_view(objects.getLineStrSection().data(), objects.getLineStrSection().size());
  const llvm::DWARFSection &offsets = objects.getStrOffsetsSection();
  bytes.str_offsets = std::string_view(offsets.Data.data(), offsets.Data.size());
  bytes.line = std::string_view(objects.getLineSection().Data.data(), objects.getLineSection().Data.size());
  return bytes;
}

MappedFile LlvmDebugInfo::searched_file() {
  if (!searched_fd_opened_) {
    searched_fd_opened_ = true;
    searched_fd_ = UniqueFd(::open(dwarf_file().c_str(), O_RDONLY | O_CLOEXEC));
  }
  return MappedFile{searched_fd_.get(), dwarf_mapping()};
}

bool LlvmDebugInfo::search_instead_of_index() const {
  return !name_index_ && !open_options_.use_cache && open_options_.use_index && !binary_.getBinary()->isRelocatableObject() &&
         binary_.getBinary()->isLittleEndian();
}

const NameIndex *LlvmDebugInfo::index_for(const std::string &name, bool instances) {
  // With the cache, the whole file's index: built once, then read in ~1 ms.
  if (!search_instead_of_index()) return name_index();
  return searched_index(name, instances);
}

const NameIndex *LlvmDebugInfo::searched_index(const std::string &name, bool instances) {
  bool little = binary_.getBinary()->isLittleEndian() && !binary_.getBinary()->isRelocatableObject();
  if (!little) return name_index();
  std::string key = instances ? name + "<" : name;
  if (auto it = name_indexes_.find(key); it != name_indexes_.end()) return &it->second;
  // Each search reads all of .debug_info (~25 ms on a vmlinux); past a few
  // names one scan of every unit (~300 ms) answers all the rest at once.
  if (name_indexes_.size() >= kSearchesBeforeScan) return name_index();
  DwarfBytes bytes = raw_dwarf();
  if (!unit_spans_) {
    // LLVM has read every unit header already.
    unit_spans_.emplace();
    for (const auto &unit : unit_dwarf().info_section_units())
      unit_spans_->push_back({unit->getOffset(), unit->getNextUnitOffset(),
                              static_cast<uint8_t>(unit->getFormParams().getDwarfOffsetByteSize()),
                              static_cast<uint8_t>(unit->getVersion()),
                              unit->getUnitType() == llvm::dwarf::DW_UT_skeleton});
  }
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  MappedFile file = searched_file();
  auto units = units_that_may_name(bytes, *unit_spans_, name, false, threads, file);
  if (units && instances) {
    auto more = units_that_may_name(bytes, *unit_spans_, name + "<", true, threads, file);
    if (!more) units.reset();
    else units->insert(units->end(), more->begin(), more->end());
  }
  if (!units) return name_index();  // DWARF the search cannot answer for: every unit is read
  std::sort(units->begin(), units->end());
  units->erase(std::unique(units->begin(), units->end()), units->end());
  auto scanned = scan_functions_in(bytes, *units, threads);
  // Those units' pages go back; the other units' header pages stay mapped
  // (map_unit_headers_alone: dropped, they would come back 64 KiB at a time).
  for (uint64_t offset : *units) {
    auto span = std::lower_bound(unit_spans_->begin(), unit_spans_->end(), offset,
                                 [](const UnitSpan &u, uint64_t o) { return u.offset < o; });
    if (span != unit_spans_->end() && span->offset == offset)
      drop_pages(dwarf_mapping(), bytes.info.substr(span->offset, span->end - span->offset));
  }
  if (!scanned) return name_index();
  search_note_ = "index: not used (--no-cache); '" + name + "' looked for in the " + std::to_string(units->size()) +
                 " of " + std::to_string(unit_spans_->size()) + " units that name it";
  return &name_indexes_.emplace(key, NameIndex::build(*scanned, IndexKey{})).first->second;
}

const NameIndex *LlvmDebugInfo::name_index() {
  if (name_index_) return &*name_index_;
  if (!index_note_.empty()) return nullptr;  // tried and failed: the LLVM scan answers
  if (!open_options_.use_index) {
    index_note_ = "index: not used (asked not to)";
    return nullptr;
  }
  const llvm::object::ObjectFile &obj = *binary_.getBinary();
  // A relocatable object's DWARF needs its relocations applied (LLVM does);
  // the raw scan reads little-endian data only.
  if (obj.isRelocatableObject() || !obj.isLittleEndian()) {
    index_note_ = "index: not used for a relocatable or big-endian object";
    return nullptr;
  }
  DwarfBytes bytes = raw_dwarf();

  // Split units (-gsplit-dwarf) are read from their .dwo files or .dwp.
  size_t skeletons = 0;
  std::vector<SplitUnitBytes> split = split_unit_bytes(skeletons);

  auto key = index_key(path_, build_id_);
  if (!key) {
    index_note_ = "index: " + key.error().message;
    return nullptr;
  }
  // An index made while some .dwo files were missing must not be used once
  // they are there (nor the other way round).
  if (skeletons > 0) key->identity += " split:" + std::to_string(split.size()) + "/" + std::to_string(skeletons);
  CacheOptions cache;
  // A cached index that was contradicted is not read again: this run
  // builds its own (in memory: the DWARF it came from may be a crafted
  // .dwarf image, whose index must not outlive it) and the file is gone.
  cache.enabled = open_options_.use_cache && distrusted_note_.empty();
  cache.directory = open_options_.cache_directory;
  auto obtained = obtain_index(cache, *key, [&]() -> Result<NameIndex> {
    // The scan reads all of .debug_info once: the pages it has read go back
    // every few MB (one call for many units: a call per unit costs ~10% of
    // the scan's time in TLB flushes), so that they do not all count at once.
    BatchedDrop drop(dwarf_mapping(), 8 << 20);
    auto scanned = scan_functions(bytes, split, std::max(1u, std::thread::hardware_concurrency()),
                                  [&drop](std::string_view done) { drop.done(done.size()); });
    // The workers' malloc arenas keep the per-unit vectors they freed: give them back.
    malloc_trim(0);
    if (!scanned) return std::move(scanned).error();
    return NameIndex::build(*scanned, *key);
  });
  drop_mapped_pages();
  if (!obtained) {
    index_note_ = "index: " + obtained.error().message + "; scanning with LLVM";
    return nullptr;
  }
  index_source_ = obtained->source;
  index_note_ = distrusted_note_.empty() ? obtained->note : distrusted_note_ + "\n  " + obtained->note;
  index_cache_file_ = obtained->file;
  name_index_ = std::move(obtained->index);
  return &*name_index_;
}

void LlvmDebugInfo::distrust_cached_index(const std::string &why) {
  distrusted_note_ = "index: " + index_cache_file_ + ": " + why + "; not trusted, removed, made again";
  if (!index_cache_file_.empty()) ::unlink(index_cache_file_.c_str());
  name_index_.reset();
  index_source_ = IndexSource::None;
  index_note_.clear();
}

}  // namespace kpp::dwarf
