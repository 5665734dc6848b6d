// Built without KPP_X86_DISASSEMBLER: no decoder, the line table alone tells
// where instructions start.
#include "dwarf/elf/instruction_decoder.h"

namespace kpp::dwarf {

std::unique_ptr<InstructionDecoder> InstructionDecoder::for_machine(uint16_t) { return nullptr; }

}  // namespace kpp::dwarf
