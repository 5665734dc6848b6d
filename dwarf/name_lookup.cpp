// The name index behind whole-file queries (inlined copies, functions
// without a symbol): the raw sections go to the parallel scan, and the
// result to the cache, on first use.
#include <malloc.h>

#include <thread>

#include "dwarf/cxx_names.h"
#include "dwarf/die_scan.h"
#include "dwarf/index_cache.h"
#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

namespace {
OpenOptions &process_defaults() {
  static OpenOptions options;
  return options;
}
}  // namespace

void DebugInfo::set_default_options(const OpenOptions &options) { process_defaults() = options; }
OpenOptions DebugInfo::default_options() { return process_defaults(); }

std::string DebugInfo::display_symbol(const std::string &symbol) {
  return process_defaults().demangle ? demangle_for_display(symbol) : symbol;
}

Result<std::unique_ptr<DebugInfo>> DebugInfo::open(const std::string &path, const OpenOptions &options) {
  auto info = open(path);
  if (!info) return info;
  // open() makes nothing but an LlvmDebugInfo (and -fno-rtti rules out dynamic_cast).
  static_cast<LlvmDebugInfo &>(**info).set_open_options(options);
  return info;
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
  const llvm::DWARFObject &dwarf = context_->getDWARFObj();
  DwarfBytes bytes;
  dwarf.forEachInfoSections([&](const llvm::DWARFSection &s) {
    if (bytes.info.empty()) bytes.info = std::string_view(s.Data.data(), s.Data.size());
  });
  bytes.abbrev = std::string_view(dwarf.getAbbrevSection().data(), dwarf.getAbbrevSection().size());
  bytes.str = std::string_view(dwarf.getStrSection().data(), dwarf.getStrSection().size());
  bytes.line_str = std::string_view(dwarf.getLineStrSection().data(), dwarf.getLineStrSection().size());
  const llvm::DWARFSection &offsets = dwarf.getStrOffsetsSection();
  bytes.str_offsets = std::string_view(offsets.Data.data(), offsets.Data.size());
  bytes.line = std::string_view(dwarf.getLineSection().Data.data(), dwarf.getLineSection().Data.size());

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
  cache.enabled = open_options_.use_cache;
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
  index_note_ = obtained->note;
  name_index_ = std::move(obtained->index);
  return &*name_index_;
}

}  // namespace kpp::dwarf
