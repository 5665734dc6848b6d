// Opening an ELF file: its DWARF context, function symbols, load segments
// and build-id. Everything here is read once, at open.
#include <algorithm>
#include <cstdio>

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
  auto binary = object::ObjectFile::createObjectFile(path);
  if (!binary) {
    std::string why = toString(binary.takeError());
    return Error("cannot open '" + path + "': " + why);
  }
  if (!binary->getBinary()->isELF())
    return Error("'" + path + "' is not an ELF file");
  auto info = std::make_unique<LlvmDebugInfo>(path, std::move(*binary));
  if (!info->has_debug_info()) {
    Status attached = info->attach_separate_debug();
    if (!attached) return std::move(attached).error();
  }
  return std::unique_ptr<DebugInfo>(std::move(info));
}

LlvmDebugInfo::LlvmDebugInfo(std::string path, object::OwningBinary<object::ObjectFile> binary)
    : path_(std::move(path)), binary_(std::move(binary)) {
  // Problems in the DWARF are reported by the queries that meet them; the
  // handlers keep LLVM from printing to stderr on its own.
  layout_ = SectionLayout::of(*binary_.getBinary());
  context_ = DWARFContext::create(*binary_.getBinary(), DWARFContext::ProcessDebugRelocations::Process,
                                  layout_->empty() ? nullptr : layout_.get(), path_ + ".dwp", [](llvm::Error e) { consumeError(std::move(e)); },
                                  [](llvm::Error e) { consumeError(std::move(e)); });
  read_elf_facts();
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

void LlvmDebugInfo::read_symbols(const object::ObjectFile &obj) {
  // Without a readable symbol table, functions are found in the DWARF alone.
  if (!symbol_tables_fit(obj)) return;
  for (const object::SymbolRef &sym : obj.symbols()) {
    auto type = sym.getType();
    auto name = sym.getName();
    auto address = sym.getAddress();
    if (!type || !name || !address) {
      if (!type) consumeError(type.takeError());
      if (!name) consumeError(name.takeError());
      if (!address) consumeError(address.takeError());
      continue;
    }
    if (*name == "linux_banner") is_kernel_ = true;
    if (*address == 0 && layout_->empty()) continue;
    if (name->empty()) continue;
    // In a .ko, values are offsets into their section: add the section's base.
    if (!layout_->empty()) {
      auto section = sym.getSection();
      if (!section) {
        consumeError(section.takeError());
        continue;
      }
      if (*section == obj.section_end() || layout_->base_of((*section)->getIndex()) == 0) continue;
      *address += layout_->base_of((*section)->getIndex());
    }
    uint64_t size = object::ELFSymbolRef(sym).getSize();
    if (*type == object::SymbolRef::ST_Function) functions_.push_back({name->str(), *address, size});
    if (*type == object::SymbolRef::ST_Function || *type == object::SymbolRef::ST_Data)
      symbols_.push_back({name->str(), *address, size});
  }
  auto by_address = [](const ElfSymbol &a, const ElfSymbol &b) { return a.address < b.address; };
  std::sort(functions_.begin(), functions_.end(), by_address);
  std::sort(symbols_.begin(), symbols_.end(), by_address);
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
  return std::make_pair(it->name, address - it->address);
}

}  // namespace kpp::dwarf
