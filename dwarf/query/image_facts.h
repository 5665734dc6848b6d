// ElfFacts (dwarf/elf_facts.h) as the ELF image answers them
// (dwarf/elf/elf_image.h): what DebugInfo::elf() hands to the code that
// needs the facts of the file itself. A Go program stripped of its symbols
// has its functions named by Go's own table (dwarf/query/go_code.h).
#pragma once

#include "dwarf/elf/elf_image.h"
#include "dwarf/elf_facts.h"
#include "dwarf/query/go_code.h"

namespace kpp::dwarf {

class ImageFacts final : public ElfFacts {
 public:
  ImageFacts(ElfImage &image, GoCode &go) : image_(image), go_(go) {}  // both outlive this

  const std::string &path() const override { return image_.path(); }
  uint16_t machine() const override { return image_.machine(); }
  bool is_kernel() const override { return image_.is_kernel(); }
  std::string build_id() const override { return image_.build_id(); }
  bool is_shared_library() const override { return image_.is_shared_library(); }
  std::optional<uint64_t> address_of_file_offset(uint64_t at) override { return image_.address_of_file_offset(at); }
  Result<uint64_t> file_offset(uint64_t address) override { return image_.file_offset(address); }
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t at) override { return go_.symbolize(at); }
  std::optional<uint64_t> find_read_only_bytes(std::string_view b) override { return image_.find_read_only_bytes(b); }
  std::optional<GotSlot> got_slot_of(uint64_t address) override { return image_.got_slot_of(address); }
  bool returns_at(uint64_t address) override { return image_.returns_at(address); }
  std::map<std::string, uint64_t> symbol_addresses(const std::vector<std::string> &names) override {
    return image_.symbol_addresses(names);
  }
  std::vector<uint64_t> function_symbol_addresses(const std::string &name) override {
    return image_.function_symbol_addresses(name);
  }
  std::optional<std::pair<std::string, uint64_t>> unique_function_symbol_before(uint64_t address) override {
    return image_.unique_function_symbol_before(address);
  }

 private:
  ElfImage &image_;
  GoCode &go_;
};

}  // namespace kpp::dwarf
