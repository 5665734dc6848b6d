// Opening a program's debug info: its ELF image (dwarf/elf/elf_image.h), then
// its DWARF context, made on first use from the program, its separate debug
// file or an inflated copy of either.
#include <algorithm>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <llvm/Support/Error.h>

#include "dwarf/elf/inflated_image.h"
#include "dwarf/index/index_cache.h"
#include "dwarf/query/llvm_debug_info.h"

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

Result<std::unique_ptr<DebugInfo>> DebugInfo::open(const std::string &path, const OpenOptions &options) {
  auto image = ElfImage::open(path);
  if (!image) return std::move(image).error();
  auto info = std::make_unique<LlvmDebugInfo>(std::move(*image), options);
  // No DWARF anywhere is a mode, as in perf probe: the symbol tables still
  // place function entries, returns and offsets (has_dwarf(), dwarf_note()).
  if (!info->has_debug_info()) (void)info->attach_separate_debug();
  return std::unique_ptr<DebugInfo>(std::move(info));
}

// The function index is made with the object, from its ELF facts: image_
// and open_options_ are members declared before it.
LlvmDebugInfo::LlvmDebugInfo(ElfImage image, OpenOptions options)
    : image_(std::move(image)),
      open_options_(std::move(options)),
      function_index_(static_cast<IndexedDwarf &>(*this),
                      FunctionIndex::Target{image_.path(), image_.build_id(),
                                            !image_.object().isRelocatableObject() && image_.object().isLittleEndian()},
                      open_options_) {}

DWARFContext &LlvmDebugInfo::context() {
  // Made on first use: a bare FUNC%return or -F never needs it.
  if (!context_) {
    inflate_dwarf();
    const object::ObjectFile &dwarf_file = inflated_.binary.getBinary() ? *inflated_.binary.getBinary()
                                           : debug_binary_.getBinary()  ? *debug_binary_.getBinary()
                                                                        : image_.object();
    // Problems in the DWARF are reported by the queries that meet them; the
    // handlers keep LLVM from printing to stderr on its own.
    LaidOutSections laid_out(image_.layout());
    context_ = DWARFContext::create(dwarf_file, DWARFContext::ProcessDebugRelocations::Process,
                                    image_.layout().empty() ? nullptr : &laid_out, image_.path() + ".dwp",
                                    problems_.handler(debug_path()), problems_.handler(debug_path()));
  }
  return *context_;
}

void LlvmDebugInfo::inflate_dwarf() {
  const object::ObjectFile &source = debug_binary_.getBinary() ? *debug_binary_.getBinary() : image_.object();
  std::string_view elf(source.getData().data(), source.getData().size());
  auto layout = inflated_layout(elf);
  if (!layout) return;  // nothing compressed (or nothing this reads): LLVM reads the file as it is
  InflateOptions options;
  options.threads = std::max(1u, std::thread::hardware_concurrency());
  std::string_view source_mapping = debug_binary_.getBinary() ? debug_mapping_ : image_.mapping();
  auto adopt = [&](const std::string &file) {
    auto object = open_mapped_object(file);
    if (!object) return false;
    inflated_ = std::move(*object);
    inflated_path_ = file;
    return true;
  };
  // A cached image (made by an earlier run) when it has the layout this file's headers give.
  if (auto home = cache_home(debug_path())) {
    home->key.identity += " inflated v1";
    std::string file = cache_file(home->directory, home->key, ".dwarf");
    UniqueFd cached(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (cached.valid() && is_inflated_image(cached.get(), *layout, home->key.identity) && adopt(file)) return;
    Status stored = store_written(file, home->max_bytes, [&](int fd) -> Status {
      if (Status written = write_inflated_image(elf, fd, options); !written) return written;
      return seal_inflated_image(fd, *layout, home->key.identity);
    });
    drop_pages(source_mapping, source_mapping);
    if (stored && adopt(file)) return;
  }
  // Without the cache: in memory, but not in the process's (a memfd's pages
  // count only where they are mapped and read).
  UniqueFd memory(memfd_create("kpp-inflated-dwarf", MFD_CLOEXEC));
  InflateOptions in_memory = options;
  in_memory.reserve = false;
  if (!open_options_.reads_locations) in_memory.leave_out = {".debug_loclists", ".debug_loc"};
  if (!memory.valid() || !write_inflated_image(elf, memory.get(), in_memory)) return;  // LLVM inflates, as before
  drop_pages(source_mapping, source_mapping);
  if (adopt("/proc/self/fd/" + std::to_string(memory.get()))) inflated_fd_ = std::move(memory);
}

bool LlvmDebugInfo::has_debug_info() const {
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

DWARFContext &LlvmDebugInfo::dwarf() {
  DWARFContext &context = mapped_dwarf();
  check_every_unit();
  return context;
}

DWARFContext &LlvmDebugInfo::mapped_dwarf() {
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
