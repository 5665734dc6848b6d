// Instruction lengths from LLVM's MC disassembler, to tell whether an
// address inside a function starts an instruction when the line table has
// no row there (a kprobe in the middle of an instruction corrupts it).
// Private to dwarf/. Only x86-64's is linked in (where instructions have
// variable length), and only with the CMake option KPP_X86_DISASSEMBLER;
// without it for_machine() returns null (instruction_decoder_none.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace kpp::dwarf {

class InstructionDecoder {
 public:
  // A decoder for ELF machine `e_machine`; null when none is linked in.
  static std::unique_ptr<InstructionDecoder> for_machine(uint16_t e_machine);
  virtual ~InstructionDecoder() = default;

  // Decoding `code` from its first byte (an instruction start at
  // `code_address`), whether an instruction starts at `address`; nullopt
  // when the bytes do not decode before reaching it.
  virtual std::optional<bool> starts_instruction(std::string_view code, uint64_t code_address, uint64_t address) = 0;

  // The instructions of `code` (at `code_address`) that leave it: where a
  // probe sees every return of a function without a uretprobe (Go's runtime
  // reads and rewrites return addresses: dwarf/lang/go_returns.cpp).
  struct Exits {
    std::vector<uint64_t> returns;        // each return instruction's address
    std::optional<uint64_t> jumps_out;    // the first direct jump whose target is outside `code` (a tail call)
    std::optional<uint64_t> undecodable;  // where decoding stopped short of the end, if it did
  };
  virtual Exits exits(std::string_view code, uint64_t code_address) = 0;

  // Where Go's stack check that starts `code` (a function's first bytes, at
  // `code_address`) ends: the address after its `jbe` to the call of the
  // runtime's morestack, which grows the stack and starts the function
  // again from its entry. The check is Go's (cmd/internal/obj/x86's
  // stacksplit): `cmp rsp, [r14+0x10]; jbe`, or, for a larger frame,
  // `lea r12, [rsp-N]` (or `mov r12, rsp; sub r12, N; jb`) then
  // `cmp r12, [r14+0x10]; jbe`. nullopt when the code starts otherwise
  // (a NOSPLIT function has no check, and is never started again).
  virtual std::optional<uint64_t> after_go_stack_check(std::string_view code, uint64_t code_address) = 0;
};

}  // namespace kpp::dwarf
