// Facts the definition builder checks before it lets a kernel probe through:
// instruction starts (the line table, else the disassembler) and which
// function names the symbol table holds more than once. Section marker
// symbols: elf_file.cpp.
#include <algorithm>
#include <set>

#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

using namespace llvm;

bool LlvmDebugInfo::is_instruction_start(const Function &fn, uint64_t address) {
  if (address == fn.entry) return true;
  for (const LineRow &row : rows_of(fn))
    if (row.address == address) return true;
  // No row there: decode the instructions from the start of the range that
  // holds it (the function's entry when that range has it), as the kernel's
  // own x86 check decodes from the symbol's start.
  if (!decoder()) return false;
  for (const AddressRange &r : fn.ranges) {
    if (!r.contains(address)) continue;
    uint64_t start = r.contains(fn.entry) ? fn.entry : r.begin;
    auto code = code_bytes(start, r.end);
    return code && decoder()->starts_instruction(*code, start, address).value_or(false);
  }
  return false;
}

InstructionDecoder *LlvmDebugInfo::decoder() {
  if (!decoder_made_) {
    decoder_ = InstructionDecoder::for_machine(machine_);
    decoder_made_ = true;
  }
  return decoder_.get();
}

std::string LlvmDebugInfo::instruction_oracle() {
  return decoder() ? "the line table and the disassembler" : "the line table";
}

std::optional<std::string_view> LlvmDebugInfo::code_bytes(uint64_t begin, uint64_t end) {
  for (const object::SectionRef &section : binary_.getBinary()->sections()) {
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

std::vector<uint64_t> LlvmDebugInfo::function_symbol_addresses(const std::string &name) {
  std::vector<uint64_t> found;
  for (const ElfSymbol &sym : symbols_.functions_named(name))
    if (sym.name == name && std::find(found.begin(), found.end(), sym.address) == found.end())
      found.push_back(sym.address);
  return found;
}

std::optional<std::pair<std::string, uint64_t>> LlvmDebugInfo::unique_function_symbol_before(uint64_t address) {
  const std::vector<ElfSymbol> &functions = symbols_.functions();
  auto it = std::upper_bound(functions.begin(), functions.end(), address,
                             [](uint64_t a, const ElfSymbol &s) { return a < s.address; });
  if (it == functions.begin()) return std::nullopt;
  uint64_t section = std::prev(it)->section;
  std::map<std::string_view, int> uses;
  for (const ElfSymbol &sym : functions) ++uses[sym.name];
  while (it != functions.begin()) {
    --it;
    if (it->section != section) break;
    if (uses[it->name] == 1) return std::make_pair(std::string(it->name), address - it->address);
  }
  return std::nullopt;
}

}  // namespace kpp::dwarf
