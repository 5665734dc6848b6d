// Opening an ELF file: its DWARF context, function symbols, load segments
// and build-id. Everything here is read once, at open.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>

#include "dwarf/index_cache.h"
#include "dwarf/inflated_image.h"
#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

std::string hex(ArrayRef<uint8_t> bytes) {
  std::string out;
  char buf[3];
  for (uint8_t b : bytes) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    out += buf;
  }
  return out;
}

template <class ELFT>
void read_segments_and_notes(const object::ELFFile<ELFT> &elf, std::vector<LoadSegment> &segments,
                             std::string &build_id, bool &library) {
  auto headers = elf.program_headers();
  if (!headers) {
    consumeError(headers.takeError());
    return;
  }
  // A shared object without a program interpreter: a library (a PIE program has one).
  library = elf.getHeader().e_type == ELF::ET_DYN;
  for (const auto &ph : *headers) {
    if (ph.p_type == ELF::PT_INTERP) library = false;
    if (ph.p_type == ELF::PT_LOAD) {
      segments.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz});
    } else if (ph.p_type == ELF::PT_NOTE && build_id.empty()) {
      llvm::Error err = llvm::Error::success();
      for (const auto &note : elf.notes(ph, err))
        if (note.getType() == ELF::NT_GNU_BUILD_ID && note.getName() == "GNU") build_id = hex(note.getDesc(4));
      consumeError(std::move(err));
    }
  }
  // A relocatable file (a module's .ko) has no program headers: its notes are sections.
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return;
  }
  for (const auto &sh : *sections) {
    if (sh.sh_type != ELF::SHT_NOTE || !build_id.empty()) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto &note : elf.notes(sh, err))
      if (note.getType() == ELF::NT_GNU_BUILD_ID && note.getName() == "GNU") build_id = hex(note.getDesc(4));
    consumeError(std::move(err));
  }
}

}  // namespace

Result<std::unique_ptr<DebugInfo>> DebugInfo::open(const std::string &path, const OpenOptions &options) {
  auto object = open_mapped_object(path);
  if (!object) return std::move(object).error();
  if (!object->binary.getBinary()->isELF())
    return Error("'" + path + "' is not an ELF file");
  auto info = std::make_unique<LlvmDebugInfo>(path, std::move(*object), options);
  // No DWARF anywhere is a mode, as in perf probe: the symbol tables still
  // place function entries, returns and offsets (has_dwarf(), dwarf_note()).
  if (!info->has_debug_info()) (void)info->attach_separate_debug();
  return std::unique_ptr<DebugInfo>(std::move(info));
}

LlvmDebugInfo::LlvmDebugInfo(std::string path, MappedObject object, OpenOptions options)
    : path_(std::move(path)), binary_(std::move(object.binary)), mapping_(object.mapping), open_options_(std::move(options)) {
  // Problems in the DWARF are reported by the queries that meet them; the
  // handlers keep LLVM from printing to stderr on its own.
  layout_ = SectionLayout::of(*binary_.getBinary());
  read_elf_facts();
  const object::ObjectFile &obj = *binary_.getBinary();
  function_index_.emplace(static_cast<IndexedDwarf &>(*this),
                          FunctionIndex::Target{path_, build_id_, !obj.isRelocatableObject() && obj.isLittleEndian()},
                          open_options_);
}

DWARFContext &LlvmDebugInfo::context() {
  // Made on first use: a bare FUNC%return or -F never needs it.
  if (!context_) {
    inflate_dwarf();
    const object::ObjectFile &dwarf_file = inflated_.binary.getBinary() ? *inflated_.binary.getBinary()
                                           : debug_binary_.getBinary()  ? *debug_binary_.getBinary()
                                                                        : *binary_.getBinary();
    context_ = DWARFContext::create(dwarf_file, DWARFContext::ProcessDebugRelocations::Process,
                                    layout_->empty() ? nullptr : layout_.get(), path_ + ".dwp",
                                    problems_.handler(debug_path()), problems_.handler(debug_path()));
  }
  return *context_;
}

void LlvmDebugInfo::inflate_dwarf() {
  const object::ObjectFile &source = debug_binary_.getBinary() ? *debug_binary_.getBinary() : *binary_.getBinary();
  std::string_view elf(source.getData().data(), source.getData().size());
  auto layout = inflated_layout(elf);
  if (!layout) return;  // nothing compressed (or nothing this reads): LLVM reads the file as it is
  const InflateOptions options{.threads = std::max(1u, std::thread::hardware_concurrency())};
  std::string_view source_mapping = debug_binary_.getBinary() ? debug_mapping_ : mapping_;
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
  if (!memory.valid() || !write_inflated_image(elf, memory.get(), options)) return;  // LLVM inflates, as before
  drop_pages(source_mapping, source_mapping);
  if (adopt("/proc/self/fd/" + std::to_string(memory.get()))) inflated_fd_ = std::move(memory);
}

bool LlvmDebugInfo::has_debug_info() const {
  // By section name (compressed the old way too), without making the context.
  for (const object::SectionRef &section : binary_.getBinary()->sections()) {
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

void LlvmDebugInfo::read_elf_facts() {
  const object::ObjectFile &obj = *binary_.getBinary();
  if (const auto *elf = dyn_cast<object::ELFObjectFileBase>(&obj)) machine_ = elf->getEMachine();
  if (const auto *e = dyn_cast<object::ELF64LEObjectFile>(&obj))
    read_segments_and_notes(e->getELFFile(), segments_, build_id_, is_library_);
  else if (const auto *e = dyn_cast<object::ELF64BEObjectFile>(&obj))
    read_segments_and_notes(e->getELFFile(), segments_, build_id_, is_library_);
  else if (const auto *e = dyn_cast<object::ELF32LEObjectFile>(&obj))
    read_segments_and_notes(e->getELFFile(), segments_, build_id_, is_library_);
  symbols_ = SymbolTable(obj, *layout_);
  if (!symbols_.has_functions()) {
    // A stripped program keeps the symbols it exports (.dynsym).
    SymbolTable dynamic(obj, *layout_, SymbolSection::Dynamic);
    if (dynamic.has_functions()) {
      symbols_ = std::move(dynamic);
      symbols_are_dynamic_ = true;
    }
  }
  symbols_.read_lookups_from(path_, mapping_);
}

bool LlvmDebugInfo::is_kernel() const {
  if (!is_kernel_) is_kernel_ = symbols_.contains("linux_banner");
  return *is_kernel_;
}

std::map<std::string, uint64_t> LlvmDebugInfo::symbol_addresses(const std::vector<std::string> &names) {
  // Each spec asks for the same markers: the symbol table (~120k entries in
  // a vmlinux) is walked once for names not asked for before.
  std::set<std::string_view> wanted;
  for (const std::string &n : names)
    if (!marker_addresses_.count(n)) wanted.insert(n);
  if (!wanted.empty()) {
    for (std::string_view n : wanted) marker_addresses_.emplace(n, std::nullopt);
    std::vector<std::string_view> asked(wanted.begin(), wanted.end());
    std::vector<std::optional<uint64_t>> addresses = symbols_.first_addresses(asked);
    for (size_t i = 0; i < asked.size(); ++i) marker_addresses_.find(asked[i])->second = addresses[i];
  }
  std::map<std::string, uint64_t> found;
  for (const std::string &n : names)
    if (auto it = marker_addresses_.find(n); it != marker_addresses_.end() && it->second) found.emplace(n, *it->second);
  return found;
}

Result<uint64_t> LlvmDebugInfo::file_offset(uint64_t address) {
  for (const LoadSegment &seg : segments_)
    if (address >= seg.vaddr && address < seg.vaddr + seg.file_size) return address - seg.vaddr + seg.file_offset;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
  return Error(std::string("address ") + buf + " is not in any loadable segment of '" + path_ + "'");
}

std::optional<uint64_t> LlvmDebugInfo::address_of_file_offset(uint64_t offset) {
  for (const LoadSegment &seg : segments_)
    if (offset >= seg.file_offset && offset < seg.file_offset + seg.file_size) return offset - seg.file_offset + seg.vaddr;
  return std::nullopt;
}

std::optional<std::pair<std::string, uint64_t>> LlvmDebugInfo::symbolize(uint64_t address) {
  auto sym = symbols_.symbolize(address);
  if (!sym) return std::nullopt;
  return std::make_pair(std::string(sym->first), sym->second);
}

std::optional<uint64_t> LlvmDebugInfo::find_read_only_bytes(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  // The program's own sections: a separate debug file has no section data.
  for (const object::SectionRef &section : binary_.getBinary()->sections()) {
    object::ELFSectionRef ref(section);
    uint64_t flags = ref.getFlags();
    if (!(flags & ELF::SHF_ALLOC) || (flags & (ELF::SHF_WRITE | ELF::SHF_EXECINSTR)) || ref.getType() != ELF::SHT_PROGBITS)
      continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      continue;
    }
    size_t at = std::string_view(contents->data(), contents->size()).find(bytes);
    if (at != std::string_view::npos) return section.getAddress() + at;
  }
  return std::nullopt;
}

std::optional<DebugInfo::GotSlot> LlvmDebugInfo::got_slot_of(uint64_t address) {
  if (!got_entries_) {
    got_entries_.emplace();
    // GLOB_DAT relocations fill a GOT slot with a symbol's run-time address.
    const auto *elf = dyn_cast<object::ELFObjectFileBase>(binary_.getBinary());
    uint64_t glob_dat = machine_ == ELF::EM_X86_64 ? ELF::R_X86_64_GLOB_DAT
                        : machine_ == ELF::EM_AARCH64 ? ELF::R_AARCH64_GLOB_DAT
                                                      : 0;
    if (elf && glob_dat) {
      for (const object::SectionRef &section : elf->dynamic_relocation_sections()) {
        for (const object::RelocationRef &reloc : section.relocations()) {
          if (reloc.getType() != glob_dat) continue;
          object::symbol_iterator sym = reloc.getSymbol();
          if (sym == elf->symbol_end()) continue;
          object::ELFSymbolRef symbol(*sym);
          auto type = symbol.getType();
          if (!type) {
            consumeError(type.takeError());
            continue;
          }
          auto value = symbol.getValue();
          if (!value) {
            consumeError(value.takeError());
            continue;
          }
          if (*type != object::SymbolRef::ST_Data || *value == 0) continue;
          got_entries_->push_back({*value, symbol.getSize(), reloc.getOffset()});
        }
      }
      std::sort(got_entries_->begin(), got_entries_->end(),
                [](const GotEntry &a, const GotEntry &b) { return a.start < b.start; });
    }
  }
  auto it = std::upper_bound(got_entries_->begin(), got_entries_->end(), address,
                             [](uint64_t a, const GotEntry &e) { return a < e.start; });
  if (it == got_entries_->begin()) return std::nullopt;
  --it;
  if (address >= it->start + std::max<uint64_t>(it->size, 1)) return std::nullopt;
  return GotSlot{it->slot, address - it->start};
}

}  // namespace kpp::dwarf
