// Opening the program's ELF image: its machine, build-id, load segments and
// symbol table, read once, at open; file offsets from the load segments.
#include "dwarf/elf/elf_image.h"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>

#include "util/strings.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

std::string_view chars_of(ArrayRef<uint8_t> bytes) { return {reinterpret_cast<const char *>(bytes.data()), bytes.size()}; }

// The build-id of `elf`: its NT_GNU_BUILD_ID note, found through the
// program headers or, in a relocatable file (a module's .ko, which has
// none), the sections; "" when it has none.
template <class ELFT>
std::string build_id_in(const object::ELFFile<ELFT> &elf) {
  std::string build_id;
  auto look_in = [&](const auto &where) {
    llvm::Error err = llvm::Error::success();
    for (const auto &note : elf.notes(where, err))
      if (note.getType() == ELF::NT_GNU_BUILD_ID && note.getName() == "GNU") build_id = hex_bytes(chars_of(note.getDesc(4)));
    consumeError(std::move(err));
  };
  if (auto headers = elf.program_headers()) {
    for (const auto &ph : *headers)
      if (ph.p_type == ELF::PT_NOTE && build_id.empty()) look_in(ph);
  } else {
    consumeError(headers.takeError());
  }
  if (auto sections = elf.sections()) {
    for (const auto &sh : *sections)
      if (sh.sh_type == ELF::SHT_NOTE && build_id.empty()) look_in(sh);
  } else {
    consumeError(sections.takeError());
  }
  return build_id;
}

template <class ELFT>
void read_segments(const object::ELFFile<ELFT> &elf, std::vector<LoadSegment> &segments, bool &library) {
  auto headers = elf.program_headers();
  if (!headers) {
    consumeError(headers.takeError());
    return;
  }
  // A shared object without a program interpreter: a library (a PIE program has one).
  library = elf.getHeader().e_type == ELF::ET_DYN;
  for (const auto &ph : *headers) {
    if (ph.p_type == ELF::PT_INTERP) library = false;
    if (ph.p_type == ELF::PT_LOAD) segments.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz});
  }
}

}  // namespace

std::string build_id_of(const object::ObjectFile &obj) {
  if (const auto *e = dyn_cast<object::ELF64LEObjectFile>(&obj)) return build_id_in(e->getELFFile());
  if (const auto *e = dyn_cast<object::ELF64BEObjectFile>(&obj)) return build_id_in(e->getELFFile());
  if (const auto *e = dyn_cast<object::ELF32LEObjectFile>(&obj)) return build_id_in(e->getELFFile());
  if (const auto *e = dyn_cast<object::ELF32BEObjectFile>(&obj)) return build_id_in(e->getELFFile());
  return "";
}

Result<ElfImage> ElfImage::open(const std::string &path) {
  auto object = open_mapped_object(path);
  if (!object) return std::move(object).error();
  if (!object->binary.getBinary()->isELF()) return Error("'" + path + "' is not an ELF file");
  return ElfImage(path, std::move(*object));
}

ElfImage::ElfImage(std::string path, MappedObject object)
    : path_(std::move(path)), binary_(std::move(object.binary)), mapping_(object.mapping),
      layout_(SectionLayout::of(*binary_.getBinary())) {
  read_facts();
}

void ElfImage::read_facts() {
  const object::ObjectFile &obj = *binary_.getBinary();
  if (const auto *elf = dyn_cast<object::ELFObjectFileBase>(&obj)) machine_ = elf->getEMachine();
  if (const auto *e = dyn_cast<object::ELF64LEObjectFile>(&obj)) read_segments(e->getELFFile(), segments_, is_library_);
  else if (const auto *e = dyn_cast<object::ELF64BEObjectFile>(&obj)) read_segments(e->getELFFile(), segments_, is_library_);
  else if (const auto *e = dyn_cast<object::ELF32LEObjectFile>(&obj)) read_segments(e->getELFFile(), segments_, is_library_);
  build_id_ = build_id_of(obj);
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

void ElfImage::adopt_symbols_of(const object::ObjectFile &debug, const std::string &debug_path,
                                std::string_view debug_mapping) {
  // A fully stripped program has no .symtab (at most the exported
  // .dynsym); the debug file keeps the whole table.
  if (!symbols_are_dynamic_ && symbols_.has_functions()) return;
  SymbolTable full(debug, *layout_);
  if (!full.has_functions()) return;
  symbols_ = std::move(full);
  symbols_.read_lookups_from(debug_path, debug_mapping);
  symbols_are_dynamic_ = false;
}

bool ElfImage::is_kernel() const {
  if (!is_kernel_) is_kernel_ = symbols_.contains("linux_banner");
  return *is_kernel_;
}

Result<uint64_t> ElfImage::file_offset(uint64_t address) const {
  for (const LoadSegment &seg : segments_)
    if (address >= seg.vaddr && address < seg.vaddr + seg.file_size) return address - seg.vaddr + seg.file_offset;
  return Error("address " + hex(address) + " is not in any loadable segment of '" + path_ + "'");
}

std::optional<uint64_t> ElfImage::address_of_file_offset(uint64_t offset) const {
  for (const LoadSegment &seg : segments_)
    if (offset >= seg.file_offset && offset < seg.file_offset + seg.file_size) return offset - seg.file_offset + seg.vaddr;
  return std::nullopt;
}

}  // namespace kpp::dwarf
