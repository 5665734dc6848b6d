// Opening an ELF file: its DWARF context, function symbols, load segments
// and build-id. Everything here is read once, at open.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>

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
                             std::string &build_id) {
  auto headers = elf.program_headers();
  if (!headers) {
    consumeError(headers.takeError());
    return;
  }
  for (const auto &ph : *headers) {
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

Result<std::unique_ptr<DebugInfo>> DebugInfo::open(const std::string &path) {
  auto object = open_mapped_object(path);
  if (!object) return std::move(object).error();
  if (!object->binary.getBinary()->isELF())
    return Error("'" + path + "' is not an ELF file");
  auto info = std::make_unique<LlvmDebugInfo>(path, std::move(*object));
  if (!info->has_debug_info()) {
    Status attached = info->attach_separate_debug();
    if (!attached) return std::move(attached).error();
  }
  // Reading the unit headers touched a page of .debug_info for each unit,
  // the symbols all of .symtab: a query reads again only what it needs.
  info->drop_mapped_pages();
  return std::unique_ptr<DebugInfo>(std::move(info));
}

LlvmDebugInfo::LlvmDebugInfo(std::string path, MappedObject object)
    : path_(std::move(path)), binary_(std::move(object.binary)), mapping_(object.mapping) {
  // Problems in the DWARF are reported by the queries that meet them; the
  // handlers keep LLVM from printing to stderr on its own.
  layout_ = SectionLayout::of(*binary_.getBinary());
  context_ = DWARFContext::create(*binary_.getBinary(), DWARFContext::ProcessDebugRelocations::Process,
                                  layout_->empty() ? nullptr : layout_.get(), path_ + ".dwp", [](llvm::Error e) { consumeError(std::move(e)); },
                                  [](llvm::Error e) { consumeError(std::move(e)); });
  read_elf_facts();
  isolate_headers(*context_, path_, mapping_);
  drop_mapped_pages();  // the symbol table, read once
}

void isolate_headers(DWARFContext &context, const std::string &path, std::string_view mapping) {
  if (!context.isLittleEndian()) return;
  context.getDWARFObj().forEachInfoSections([&](const DWARFSection &s) {
    isolate_unit_headers(path, mapping, std::string_view(s.Data.data(), s.Data.size()));
  });
}

void LlvmDebugInfo::read_elf_facts() {
  const object::ObjectFile &obj = *binary_.getBinary();
  if (const auto *elf = dyn_cast<object::ELFObjectFileBase>(&obj)) machine_ = elf->getEMachine();
  if (const auto *e = dyn_cast<object::ELF64LEObjectFile>(&obj))
    read_segments_and_notes(e->getELFFile(), segments_, build_id_);
  else if (const auto *e = dyn_cast<object::ELF64BEObjectFile>(&obj))
    read_segments_and_notes(e->getELFFile(), segments_, build_id_);
  else if (const auto *e = dyn_cast<object::ELF32LEObjectFile>(&obj))
    read_segments_and_notes(e->getELFFile(), segments_, build_id_);
  read_symbols(obj);
}

// Whether every symbol table lies inside the file. LLVM walks a table by its
// header's size and makes an error for each entry past the end: a hostile
// header claiming billions of entries would take minutes (found by tests/fuzz).
static bool symbol_tables_fit(const object::ObjectFile &obj) {
  uint64_t file_size = obj.getData().size();
  for (const object::SectionRef &section : obj.sections()) {
    object::ELFSectionRef elf(section);
    if (elf.getType() != ELF::SHT_SYMTAB && elf.getType() != ELF::SHT_DYNSYM) continue;
    uint64_t offset = elf.getOffset(), size = section.getSize();
    if (offset > file_size || size > file_size - offset) return false;
  }
  return true;
}

namespace {

// A .symtab entry, read straight from the table: LLVM's SymbolRef accessors
// look the table and its strings up again for each field, which made them a
// third of a warm vmlinux lookup (~120k symbols).
struct RawSymbol {
  std::string_view name;
  uint64_t value = 0, size = 0;
  uint8_t type = 0;
  uint32_t section = 0;
};

template <class ELFT>
std::vector<RawSymbol> raw_symbols(const object::ELFFile<ELFT> &elf) {
  std::vector<RawSymbol> out;
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return out;
  }
  for (const auto &sh : *sections) {
    if (sh.sh_type != ELF::SHT_SYMTAB) continue;
    auto symbols = elf.symbols(&sh);  // checked to lie inside the file
    auto strings = elf.getStringTableForSymtab(sh);
    if (!symbols || !strings) {
      if (!symbols) consumeError(symbols.takeError());
      if (!strings) consumeError(strings.takeError());
      return out;
    }
    out.reserve(symbols->size());
    for (const auto &sym : *symbols) {
      if (sym.st_name >= strings->size()) continue;
      const char *name = strings->data() + sym.st_name;
      out.push_back({std::string_view(name, strnlen(name, strings->size() - sym.st_name)), sym.st_value, sym.st_size,
                     sym.getType(), sym.st_shndx});
    }
    return out;  // the first symbol table, as LLVM's symbols() reads
  }
  return out;
}

std::vector<RawSymbol> raw_symbols_of(const object::ObjectFile &obj) {
  if (const auto *e = dyn_cast<object::ELF64LEObjectFile>(&obj)) return raw_symbols(e->getELFFile());
  if (const auto *e = dyn_cast<object::ELF64BEObjectFile>(&obj)) return raw_symbols(e->getELFFile());
  if (const auto *e = dyn_cast<object::ELF32LEObjectFile>(&obj)) return raw_symbols(e->getELFFile());
  if (const auto *e = dyn_cast<object::ELF32BEObjectFile>(&obj)) return raw_symbols(e->getELFFile());
  return {};
}

}  // namespace

void LlvmDebugInfo::read_symbols(const object::ObjectFile &obj) {
  // Without a readable symbol table, functions are found in the DWARF alone.
  if (!symbol_tables_fit(obj)) return;
  for (const RawSymbol &sym : raw_symbols_of(obj)) {
    if (sym.name == "linux_banner") is_kernel_ = true;
    bool function = sym.type == ELF::STT_FUNC, data = sym.type == ELF::STT_OBJECT || sym.type == ELF::STT_COMMON;
    if (!function && !data) continue;
    uint64_t address = sym.value;
    if (machine_ == ELF::EM_ARM && function) address &= ~uint64_t{1};  // the Thumb bit is not part of the address
    if ((address == 0 && layout_->empty()) || sym.name.empty()) continue;
    // In a .ko, values are offsets into their section: add the section's base.
    if (!layout_->empty()) {
      if (sym.section == ELF::SHN_UNDEF || sym.section >= ELF::SHN_LORESERVE || layout_->base_of(sym.section) == 0) continue;
      address += layout_->base_of(sym.section);
    }
    uint64_t section = sym.section >= ELF::SHN_LORESERVE ? 0 : sym.section;
    if (function) functions_.push_back({sym.name, address, sym.size, section});
    symbols_.push_back({sym.name, address, sym.size, section});
  }
  auto by_address = [](const ElfSymbol &a, const ElfSymbol &b) { return a.address < b.address; };
  std::sort(functions_.begin(), functions_.end(), by_address);
  std::sort(symbols_.begin(), symbols_.end(), by_address);
}

std::map<std::string, uint64_t> LlvmDebugInfo::symbol_addresses(const std::vector<std::string> &names) {
  // Each spec asks for the same markers: the symbol table (~120k entries in
  // a vmlinux) is walked once for names not asked for before.
  std::set<std::string_view> wanted;
  for (const std::string &n : names)
    if (!marker_addresses_.count(n)) wanted.insert(n);
  if (!wanted.empty()) {
    for (std::string_view n : wanted) marker_addresses_.emplace(n, std::nullopt);
    size_t left = wanted.size();
    // Markers are NOTYPE symbols, which functions_/symbols_ leave out.
    for (const RawSymbol &sym : raw_symbols_of(*binary_.getBinary())) {
      if (!wanted.count(sym.name)) continue;
      auto &slot = marker_addresses_.find(sym.name)->second;
      if (slot) continue;  // the first of same-named symbols
      slot = sym.value;
      if (--left == 0) break;
    }
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
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const ElfSymbol &s) { return a < s.address; });
  if (it == symbols_.begin()) return std::nullopt;
  --it;
  // Several symbols can share an address (aliases); any one that covers it will do.
  if (it->size != 0 && address >= it->address + it->size) return std::nullopt;
  return std::make_pair(std::string(it->name), address - it->address);
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
