// Opening the program's ELF image: its machine, build-id and load segments,
// read once, at open (its symbol table: program_symbols.cpp); file offsets from the load segments
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
}

Result<uint64_t> ElfImage::file_offset(uint64_t address) const {
  if (auto offset = headers_ ? headers_->file_offset(address) : std::nullopt) return *offset;
  return Error("address " + hex(address) + " is not in any loadable segment of '" + path_ + "'");
}

std::optional<uint64_t> ElfImage::address_of_file_offset(uint64_t offset) const {
  return headers_ ? headers_->address_of_file_offset(offset) : std::nullopt;
}

}  // namespace kpp::dwarf
