// The program's machine code, decoded: whether an instruction starts at an
// address, the returns and outward jumps of a stretch of code, where Go's
// stack check ends. One job: the bytes of the code sections (a .ko's at
// their laid-out addresses, section_layout.h) handed to the machine's
// disassembler (instruction_decoder.h), made on first use. Without a
// disassembler for the machine, or without code bytes at the addresses
// asked, the answers are "unknown" (nullopt), never a guess. Part of
// ElfImage (elf_image.h: code()); private to dwarf/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include <llvm/Object/ObjectFile.h>

#include "dwarf/elf/instruction_decoder.h"
#include "dwarf/elf/section_layout.h"

namespace kpp::dwarf {

class MachineCode {
 public:
  // The code of `object`, laid out by `layout`: both must outlive this
  // (ElfImage keeps them where its moves leave them).
  MachineCode(const llvm::object::ObjectFile &object, const SectionLayout &layout) : object_(&object), layout_(&layout) {}

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

 private:
  // The bytes of the code section that holds [begin, end) (for .ko files at
  // the laid-out addresses); nullopt when no section with contents holds it.
  std::optional<std::string_view> bytes(uint64_t begin, uint64_t end) const;
  InstructionDecoder *decoder();

  const llvm::object::ObjectFile *object_;
  const SectionLayout *layout_;
  bool decoder_made_ = false;
  std::unique_ptr<InstructionDecoder> decoder_;  // null: no disassembler for this machine
};

}  // namespace kpp::dwarf
