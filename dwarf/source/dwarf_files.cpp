// The files a program's DWARF is read from (dwarf_files.h): its DWARF
// context, made on first use from the program, its separate debug file or
// an inflated copy of either; and the raw sections the function index reads.
#include <fcntl.h>
#include <unistd.h>

#include <llvm/Support/Error.h>

#include "dwarf/elf/inflated_image.h"
#include "dwarf/index/index_cache.h"
#include "dwarf/source/dwarf_files.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

// A .ko's section layout (its ELF image's) as LLVM's DWARF reader takes it:
// the bases DWARFContext applies the debug relocations at. Read while the
// context is made, not kept.
class LaidOutSections final : public LoadedObjectInfo {
 public:
  explicit LaidOutSections(const SectionLayout &layout) : layout_(&layout) {}
  uint64_t getSectionLoadAddress(const object::SectionRef &section) const override {
    return layout_->base_of(section.getIndex());
  }
  std::unique_ptr<LoadedObjectInfo> clone() const override { return std::make_unique<LaidOutSections>(*this); }

 private:
  const SectionLayout *layout_;
};

}  // namespace

DWARFContext &DwarfFiles::context() {
  // Made on first use: a bare FUNC%return or -F never needs it.
  if (!context_) {
    const object::ObjectFile &source = debug_.object() ? *debug_.object() : image_.object();
    std::string_view elf(source.getData().data(), source.getData().size());
    // Compressed sections are read from an inflated copy (inflated_copy.h);
    // with nothing compressed (or nothing it reads) LLVM reads the file as it is.
    if (auto layout = inflated_layout(elf)) {
      std::optional<CacheHome> home = cache_home(debug_path());
      inflated_.make(elf, *layout, debug_.object() ? debug_.mapping() : image_.mapping(), home ? &*home : nullptr,
                     options_.reads_locations);
    }
    const object::ObjectFile &dwarf_file = inflated_.object() ? *inflated_.object() : source;
    // Problems in the DWARF are reported by the queries that meet them; the
    // handlers keep LLVM from printing to stderr on its own.
    LaidOutSections laid_out(image_.layout());
    context_ = DWARFContext::create(dwarf_file, DWARFContext::ProcessDebugRelocations::Process,
                                    image_.layout().empty() ? nullptr : &laid_out, image_.path() + ".dwp",
                                    problems_.handler(debug_path()), problems_.handler(debug_path()));
  }
  return *context_;
}

Status DwarfFiles::attach_separate_debug() {
  Status found = debug_.find(image_.object(), image_.path(), image_.build_id(), options_);
  if (found) image_.adopt_symbols_of(*debug_.object(), debug_.path(), debug_.mapping());
  return found;
}

bool DwarfFiles::has_debug_info() const {
  // By section name (compressed the old way too), without making the context.
  for (const object::SectionRef &section : image_.object().sections()) {
    auto name = section.getName();
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    if ((*name == ".debug_info" || *name == ".zdebug_info") && section.getSize() > 0) return true;
  }
  return false;
}

DWARFContext &DwarfFiles::mapped_dwarf() {
  if (!headers_mapped_) {
    headers_mapped_ = true;
    // Where the units start, from the cache when an earlier run wrote it.
    auto home = cache_home(debug_path());
    std::string file;
    std::optional<CachedBytes> known;
    if (home) {
      home->key.identity += " unit starts v1";
      file = cache_file(home->directory, home->key, ".units");
      if (auto cached = load_cached(file, home->key); cached && cached->bytes.size() % sizeof(UnitStart) == 0) known = *cached;
    }
    std::span<const UnitStart> starts;
    if (known) starts = {reinterpret_cast<const UnitStart *>(known->bytes.data()), known->bytes.size() / sizeof(UnitStart)};
    DWARFContext &made = context();  // first: it decides which file (an inflated copy) the DWARF is read from
    std::vector<UnitStart> found = map_headers_alone(made, dwarf_file(), dwarf_mapping(), starts);
    if (!known && !file.empty() && !found.empty())
      (void)store_cached(file, home->key,
                         std::string_view(reinterpret_cast<const char *>(found.data()), found.size() * sizeof(UnitStart)),
                         home->max_bytes);  // costs the next run only
    context_->getNumCompileUnits();  // LLVM reads every unit header here
  }
  return context();
}

void DwarfFiles::drop_mapped_pages() {
  image_.drop_mapped_pages();
  drop_pages(debug_.mapping(), debug_.mapping());
  drop_pages(inflated_.mapping(), inflated_.mapping());
}

std::optional<CacheHome> DwarfFiles::cache_home(const std::string &binary) const {
  CacheOptions cache;
  cache.enabled = options_.use_cache;
  cache.directory = options_.cache_directory;
  if (!cache.enabled) return std::nullopt;
  auto directory = usable_cache_directory(cache);
  if (!directory) {
    cache_refused_ = "cache not used: " + directory.error().message;
    return std::nullopt;
  }
  auto key = index_key(binary, image_.build_id());
  if (!key) return std::nullopt;
  return CacheHome{*directory, *key, cache.max_bytes};
}

DwarfBytes DwarfFiles::raw_dwarf() {
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

MappedFile DwarfFiles::searched_file() {
  if (!searched_fd_opened_) {
    searched_fd_opened_ = true;
    searched_fd_ = UniqueFd(::open(dwarf_file().c_str(), O_RDONLY | O_CLOEXEC));
  }
  return MappedFile{searched_fd_.get(), dwarf_mapping()};
}

std::vector<UnitStart> map_headers_alone(DWARFContext &context, const std::string &path, std::string_view mapping,
                                         std::span<const UnitStart> known) {
  std::vector<UnitStart> starts;
  if (!context.isLittleEndian()) return starts;
  context.getDWARFObj().forEachInfoSections([&](const DWARFSection &s) {
    if (starts.empty()) starts = map_unit_headers_alone(path, mapping, std::string_view(s.Data.data(), s.Data.size()), known);
  });
  return starts;
}

}  // namespace kpp::dwarf
