// What the function index (dwarf/index/function_index.h) reads of the DWARF: the
// raw sections, the file for its byte searches, the units' spans; and where
// this run keeps cache files.
#include <fcntl.h>
#include <unistd.h>

#include "dwarf/index/index_cache.h"
#include "dwarf/query/llvm_debug_info.h"
#include "dwarf/raw/die_scan.h"

namespace kpp::dwarf {

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
  auto key = index_key(binary, build_id());
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
  bytes.rnglists = std::string_view(objects.getRnglistsSection().Data.data(), objects.getRnglistsSection().Data.size());
  return bytes;
}

MappedFile LlvmDebugInfo::searched_file() {
  if (!searched_fd_opened_) {
    searched_fd_opened_ = true;
    searched_fd_ = UniqueFd(::open(dwarf_file().c_str(), O_RDONLY | O_CLOEXEC));
  }
  return MappedFile{searched_fd_.get(), dwarf_mapping()};
}

std::vector<UnitSpan> LlvmDebugInfo::unit_spans() {
  // LLVM reads every unit header here (map_headers_alone() maps only those).
  std::vector<UnitSpan> spans;
  for (const auto &unit : unit_dwarf().info_section_units())
    spans.push_back({unit->getOffset(), unit->getNextUnitOffset(),
                     static_cast<uint8_t>(unit->getFormParams().getDwarfOffsetByteSize()),
                     static_cast<uint8_t>(unit->getVersion()), unit->getUnitType() == llvm::dwarf::DW_UT_skeleton,
                     unit->getAbbreviationsOffset()});
  return spans;
}

}  // namespace kpp::dwarf
