// The program's ELF image: what its ELF file says, apart from its DWARF.
//
// A probe is placed by facts of the file itself: a uprobe is
// path:0xFILEOFFSET (the load segments), a function's entry and FUNC+OFFS
// come from the symbol table, a PIE's globals are read through the GOT, the
// build-id names the debug file and keys the caches, and the code bytes say
// where instructions start. None of that needs DWARF, and all of it stays
// the program's when its DWARF comes from a separate debug file. So it lives
// here, apart from the DWARF reader (LlvmDebugInfo, which holds one
// ElfImage and answers DebugInfo's ELF questions from it), and a program
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
#include "dwarf/elf/instruction_decoder.h"
#include "dwarf/elf/mapped_object.h"
#include "dwarf/elf/section_layout.h"
#include "dwarf/elf/symbol_table.h"
#include "dwarf/lang/cxx_names.h"
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
  bool is_kernel() const;                                 // a vmlinux: has linux_banner
  // A .ko's sections laid out as the module loader does (empty for a linked
  // file): the addresses its symbols, code and DWARF are read at.
  const SectionLayout &layout() const { return *layout_; }

  // The symbol table: the program's .symtab, else its separate debug file's
  // (adopt_symbols_of), else the program's .dynsym. Its queries sort it, or
  // read it further, on first use.
  SymbolTable &symbols() { return symbols_; }
  // A program stripped of its .symtab (at most the exported .dynsym left)
  // takes the whole table of its separate debug file `debug`, when that has
  // function symbols; `debug` (the file at `debug_path`, mapped at
  // `debug_mapping`) must outlive this image.
  void adopt_symbols_of(const llvm::object::ObjectFile &debug, const std::string &debug_path,
                        std::string_view debug_mapping);

  // The file offset uprobes take for link-time `address`, and back
  // (ElfReader::file_offset: the load segments).
  Result<uint64_t> file_offset(uint64_t address) const;
  std::optional<uint64_t> address_of_file_offset(uint64_t offset) const;

  // DebugInfo's symbol questions (see dwarf/debug_info.h).
  std::optional<std::pair<std::string, uint64_t>> symbolize(uint64_t address);
  std::map<std::string, uint64_t> symbol_addresses(const std::vector<std::string> &names);
  std::vector<uint64_t> function_symbol_addresses(const std::string &name);
  std::optional<std::pair<std::string, uint64_t>> unique_function_symbol_before(uint64_t address);
  // symbols().functions()' names demangled (nullopt: not a C++ function),
  // and as -F prints each ("" for a C name); made on first use.
  const std::vector<std::optional<DemangledFunction>> &demangled_symbols();
  const std::vector<std::string> &printed_symbols();
  // The same for symbols().functions()[i] alone (from those vectors when
  // they are made): a lookup demangles only the symbols that may match.
  std::optional<DemangledFunction> demangled_symbol(size_t i);
  std::string printed_symbol(size_t i);
  // Whether any function symbol demangles (demangled_symbols() has a value),
  // found without demangling them all.
  bool has_demangled_function();

  // DebugInfo's section questions (dwarf/elf/elf_sections.cpp).
  std::optional<uint64_t> find_read_only_bytes(std::string_view bytes) const;
  std::optional<ElfFacts::GotSlot> got_slot_of(uint64_t address);
  // Whether a disassembler for this machine is linked in (instruction_decoder.h).
  bool decodes_instructions();
  // Decoding the code from `from` (an instruction start) up to `end`,
  // whether an instruction starts at `address`; nullopt without a
  // disassembler, without code bytes there, or when decoding stops first.
  std::optional<bool> starts_instruction(uint64_t from, uint64_t end, uint64_t address);
  // The return instructions and outward jumps of the code [begin, end)
  // (instruction_decoder.h); nullopt without a disassembler or code bytes there.
  std::optional<InstructionDecoder::Exits> exits_of(uint64_t begin, uint64_t end);
  // Whether a return instruction is at `address` (false without a disassembler).
  bool returns_at(uint64_t address);
  // Where Go's stack check at the start of the code [begin, end) ends
  // (instruction_decoder.h); nullopt without a disassembler, code bytes or
  // such a check there.
  std::optional<uint64_t> after_go_stack_check(uint64_t begin, uint64_t end);
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
  void read_facts();
  // The bytes of the code section that holds [begin, end) (for .ko files at
  // the laid-out addresses); nullopt when no section with contents holds it.
  std::optional<std::string_view> code_bytes(uint64_t begin, uint64_t end) const;
  InstructionDecoder *decoder();

  std::string path_;
  llvm::object::OwningBinary<llvm::object::ObjectFile> binary_;
  std::string_view mapping_;
  std::unique_ptr<SectionLayout> layout_;  // on the heap: symbols_ points to it, and images move
  uint16_t machine_ = 0;
  std::string build_id_;
  bool is_library_ = false;
  std::optional<ElfReader> headers_;  // the file's headers: load segments, notes; nullopt if unreadable
  mutable SymbolTable symbols_;
  bool symbols_are_dynamic_ = false;
  mutable std::optional<bool> is_kernel_;  // asked on first use
  std::map<std::string, std::optional<uint64_t>, std::less<>> marker_addresses_;  // symbol_addresses(), memoized
  std::optional<std::vector<std::optional<DemangledFunction>>> demangled_symbols_;
  std::optional<std::vector<std::string>> printed_symbols_;
  // Data symbols reached through the GOT: (start, size, slot), by start; read at first use.
  struct GotEntry {
    uint64_t start = 0, size = 0, slot = 0;
  };
  std::optional<std::vector<GotEntry>> got_entries_;
  std::optional<bool> is_go_program_;
  bool decoder_made_ = false;
  std::unique_ptr<InstructionDecoder> decoder_;  // null: no disassembler for this machine
};

}  // namespace kpp::dwarf
