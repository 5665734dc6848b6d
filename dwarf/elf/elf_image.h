// The program's ELF image: what its ELF file says, apart from its DWARF.
//
// A probe is placed by facts of the file itself: a uprobe is
// path:0xFILEOFFSET (the load segments), a function's entry and FUNC+OFFS
// come from the symbol table, a PIE's globals are read through the GOT, the
// build-id names the debug file and keys the caches, and the code bytes say
// where instructions start. None of that needs DWARF, and all of it stays
// the program's when its DWARF comes from a separate debug file. So it lives
// here, apart from the DWARF reader (LlvmDebugInfo, which holds one
// ElfImage and answers DebugInfo::elf() from it: ImageFacts), and a program
// without any DWARF still has every answer. Private to dwarf/; LLVM's
// object-file reader only, no DWARF.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llvm/Object/ObjectFile.h>

#include "dwarf/debug_info.h"
#include "dwarf/elf_reader.h"
#include "dwarf/elf/demangled_symbols.h"
#include "dwarf/elf/got_slots.h"
#include "dwarf/elf/machine_code.h"
#include "dwarf/elf/mapped_object.h"
#include "dwarf/elf/section_layout.h"
#include "dwarf/elf/program_symbols.h"
#include "dwarf/elf/symbol_table.h"
#include "util/result.h"

namespace kpp::dwarf {

// The GNU build-id of `obj` (ElfReader::build_id()), as lowercase hex; ""
// when it has none or is not ELF: a program's, and a debug file's that a
// debuginfod server sent.
std::string build_id_of(const llvm::object::ObjectFile &obj);

class ElfImage {
 public:
  // The ELF file at `path`, mapped. Errors: unreadable, not an object file,
  // not ELF.
  static Result<ElfImage> open(const std::string &path);
  // The facts of `object` (the file at `path`): machine, build-id, load
  // segments, and the symbol table (.symtab, else .dynsym).
  ElfImage(std::string path, MappedObject object);

  const std::string &path() const { return path_; }
  const llvm::object::ObjectFile &object() const { return *binary_.getBinary(); }
  std::string_view mapping() const { return mapping_; }  // the file's bytes when file-mapped, else empty
  uint16_t machine() const { return machine_; }          // ELF e_machine
  std::string build_id() const { return build_id_; }     // hex, empty when absent
  bool is_shared_library() const { return is_library_; }  // ET_DYN without a program interpreter
  bool is_kernel() const { return symbols_.is_kernel(); }  // a vmlinux: has linux_banner
  // A .ko's sections laid out as the module loader does (empty for a linked
  // file): the addresses its symbols, code and DWARF are read at.
  const SectionLayout &layout() const { return *layout_; }

  // The symbol table: the program's .symtab, else its separate debug file's
  // (adopt_symbols_of), else the program's .dynsym (program_symbols.h). Its
  // queries sort it, or read it further, on first use.
  SymbolTable &symbols() { return symbols_.table(); }
  // A program stripped of its .symtab takes the whole table of its separate
  // debug file `debug` (ProgramSymbols::adopt_table_of); `debug` (the file at
  // `debug_path`, mapped at `debug_mapping`) must outlive this image.
  void adopt_symbols_of(const llvm::object::ObjectFile &debug, const std::string &debug_path,
                        std::string_view debug_mapping) {
    symbols_.adopt_table_of(debug, debug_path, debug_mapping);
  }

  // The file offset uprobes take for link-time `address`, and back
  // (ElfReader::file_offset: the load segments).
  Result<uint64_t> file_offset(uint64_t address) const;
  std::optional<uint64_t> address_of_file_offset(uint64_t offset) const;

  // ElfFacts' symbol questions (dwarf/elf_facts.h), which the chosen table answers.
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t address) { return symbols_.symbolize(address); }
  std::map<std::string, uint64_t> symbol_addresses(const std::vector<std::string> &names) {
    return symbols_.symbol_addresses(names);
  }
  std::vector<uint64_t> function_symbol_addresses(const std::string &name) {
    return symbols_.function_symbol_addresses(name);
  }
  std::optional<std::pair<std::string, uint64_t>> unique_function_symbol_before(uint64_t address) {
    return symbols_.unique_function_symbol_before(address);
  }
  // The function symbols' names demangled, and as -F prints them (demangled_symbols.h).
  DemangledSymbols &demangled() { return demangled_; }

  // ElfFacts' section questions (dwarf/elf/elf_sections.cpp).
  std::optional<uint64_t> find_read_only_bytes(std::string_view bytes) const;
  // The GOT slot a global is read through (got_slots.h).
  std::optional<ElfFacts::GotSlot> got_slot_of(uint64_t address) { return got_.slot_of(address); }
  // The code, decoded (machine_code.h): instruction starts, returns, outward
  // jumps, Go's stack check.
  MachineCode &code() { return code_; }
  // Whether a return instruction is at `address` (ElfFacts::returns_at).
  bool returns_at(uint64_t address) { return code_.returns_at(address); }
  // The bytes of the section named `name` and its link-time address; nullopt
  // when the file has none with contents (SHT_NOBITS, a debug file's).
  struct SectionBytes {
    uint64_t address = 0;
    std::string_view bytes;
  };
  std::optional<SectionBytes> section_named(std::string_view name) const;
  // Whether the file is a Go program: it has Go's runtime tables (.gopclntab,
  // .go.buildinfo), which even `go build -ldflags=-s -w` keeps.
  bool is_go_program();

  // Gives back the pages of the file's mapping read so far (mapped_object.h).
  void drop_mapped_pages() const { drop_pages(mapping_, mapping_); }

 private:
  std::string path_;
  llvm::object::OwningBinary<llvm::object::ObjectFile> binary_;
  std::string_view mapping_;
  std::unique_ptr<SectionLayout> layout_;  // on the heap: the parts point to it, and images move
  uint16_t machine_ = 0;
  std::string build_id_;
  bool is_library_ = false;
  std::optional<ElfReader> headers_;  // the file's headers: load segments, notes; nullopt if unreadable
  ProgramSymbols symbols_{*binary_.getBinary(), *layout_, path_, mapping_};
  DemangledSymbols demangled_{symbols_.table()};
  GotSlots got_{*binary_.getBinary()};
  std::optional<bool> is_go_program_;
  MachineCode code_{*binary_.getBinary(), *layout_};
};

}  // namespace kpp::dwarf
