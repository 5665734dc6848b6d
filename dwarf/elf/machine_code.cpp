// The program's code bytes handed to its machine's disassembler (machine_code.h).
#include "dwarf/elf/machine_code.h"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>

namespace kpp::dwarf {

using namespace llvm;

InstructionDecoder *MachineCode::decoder() {
  if (!decoder_made_) {
    if (const auto *elf = dyn_cast<object::ELFObjectFileBase>(object_))
      decoder_ = InstructionDecoder::for_machine(elf->getEMachine());
    decoder_made_ = true;
  }
  return decoder_.get();
}

bool MachineCode::decodes_instructions() { return decoder() != nullptr; }

std::optional<bool> MachineCode::starts_instruction(uint64_t from, uint64_t end, uint64_t address) {
  if (!decoder()) return std::nullopt;
  auto code = bytes(from, end);
  if (!code) return std::nullopt;
  return decoder()->starts_instruction(*code, from, address);
}

std::optional<InstructionDecoder::Exits> MachineCode::exits_of(uint64_t begin, uint64_t end) {
  if (!decoder() || end <= begin) return std::nullopt;
  auto code = bytes(begin, end);
  if (!code) return std::nullopt;
  return decoder()->exits(*code, begin);
}

std::optional<uint64_t> MachineCode::after_go_stack_check(uint64_t begin, uint64_t end) {
  if (!decoder() || end <= begin) return std::nullopt;
  auto code = bytes(begin, end);
  if (!code) return std::nullopt;
  return decoder()->after_go_stack_check(*code, begin);
}

bool MachineCode::returns_at(uint64_t address) {
  // One instruction is at most 15 bytes; fewer where the code section ends.
  for (uint64_t size = 15; size > 0; --size)
    if (std::optional<InstructionDecoder::Exits> exits = exits_of(address, address + size))
      return !exits->returns.empty() && exits->returns.front() == address;
  return false;
}

std::optional<std::string_view> MachineCode::bytes(uint64_t begin, uint64_t end) const {
  for (const object::SectionRef &section : object_->sections()) {
    if (section.isVirtual() || !section.isText()) continue;
    uint64_t base = layout_->empty() ? section.getAddress() : layout_->base_of(section.getIndex());
    if (begin < base || end > base + section.getSize() || (!layout_->empty() && base == 0)) continue;
    auto contents = section.getContents();
    if (!contents) {
      consumeError(contents.takeError());
      return std::nullopt;
    }
    if (contents->size() < end - base) return std::nullopt;
    return std::string_view(contents->data() + (begin - base), end - begin);
  }
  return std::nullopt;
}

}  // namespace kpp::dwarf
