// One SDT argument as the note gives it ("-4@112(%rsp)": a signed 4-byte
// value at 112 bytes above the stack pointer) and as a uprobe fetches it
// ("+112(%sp):s32"). The operand text is the assembler's (gcc emits it
// from an "nor" asm constraint), so its syntax is the architecture's; only
// x86_64's AT&T syntax is translated, other machines get a clear refusal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dwarf/elf_reader.h"
#include "util/result.h"

namespace kpp::sdt {

struct SdtOperand {
  int size = 0;          // bytes (1, 2, 4, 8); 0 when the note gives none
  bool is_signed = false;
  enum class Kind { Register, Memory, Immediate } kind = Kind::Register;
  std::string fetch;     // "%bx", "+112(%sp)", "\\5", "@+0x4010"
};

// Where the marker sits, for operands relative to it: a `symbol(%rip)`
// operand becomes "@+OFFSET", an offset the kernel adds to where the
// probed segment is mapped.
struct OperandContext {
  const dwarf::ElfReader &elf;
  uint64_t probe_address;      // link-time pc
  uint64_t probe_file_offset;  // its file offset
};

// The operands of a note's argument string, split on blanks.
std::vector<std::string> split_operands(std::string_view args);

// Translates one operand. Errors name the operand and why: a size that is
// not 1, 2, 4 or 8; an addressing mode a fetch-arg cannot express (an index
// register); a register the kernel cannot name; an unknown symbol; a machine
// whose syntax is not translated.
Result<SdtOperand> translate_operand(std::string_view text, const OperandContext &where);

// The fetch-arg type the note's size and sign give: "s32", "u64"; "" without a size.
std::string operand_type(const SdtOperand &operand);

// The fetch-arg for the string the operand points to: "+0(%di)".
// Errors: an immediate, which points nowhere a probe can read.
Result<std::string> dereference(const SdtOperand &operand);

}  // namespace kpp::sdt
