// Opening the program's ELF image: its machine, build-id, load segments and
// symbol table, read once, at open; file offsets from the load segments
// (the one ELF header reader, dwarf/elf_reader.h).
#include "dwarf/elf/elf_image.h"

#include "dwarf/elf_reader.h"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>

#include "util/strings.h"  // hex()

namespace kpp::dwarf {

using namespace llvm;

std::string build_id_of(const object::ObjectFile &obj) {
  if (!obj.isELF()) return "";
  StringRef data = obj.getData();
  auto headers = ElfReader::of({data.data(), data.size()});
  return headers ? headers->build_id() : "";
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
  // The headers through the one ELF header reader (the file passed
  // check_elf_bounds() before LLVM opened it: the same checks).
  if (const auto *elf = dyn_cast<object::ELFObjectFileBase>(&obj)) machine_ = elf->getEMachine();
  StringRef data = obj.getData();
  if (auto headers = ElfReader::of({data.data(), data.size()})) {
    is_library_ = headers->is_shared_library();
    build_id_ = headers->build_id();
    headers_ = std::move(*headers);
  }
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
  if (auto offset = headers_ ? headers_->file_offset(address) : std::nullopt) return *offset;
  return Error("address " + hex(address) + " is not in any loadable segment of '" + path_ + "'");
}

std::optional<uint64_t> ElfImage::address_of_file_offset(uint64_t offset) const {
  return headers_ ? headers_->address_of_file_offset(offset) : std::nullopt;
}

}  // namespace kpp::dwarf
