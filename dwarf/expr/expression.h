// DWARF location expressions (DWARF 5 section 2.5 and 2.6, and the GNU
// operations gcc emits) evaluated into a Place: where a variable lives, in
// terms of what the kernel's fetch-args read (registers, memory, bits) plus,
// for what they cannot compute, a program kprobe-probe's decoder runs over
// the fetched leaves (util/value_fixup.h). Works on the expression's raw
// bytes: no DIE, no LLVM; the few things an expression asks of its place
// (the frame base, the CFA, an indexed address, a base type) come through
// ExpressionContext.
//
// Evaluation is symbolic: a register's value is not known, so the stack
// holds descriptions of values. Constants fold; a register plus a constant
// and loads through it stay kernel fetch-args; any other arithmetic on
// run-time values becomes the decoder's; a DW_OP_bra on a run-time value
// follows both ways and selects between their results; a load through a
// computed address reads from the probe's stack frame, fetched whole. What
// cannot be read at a probe (thread-local storage, another variable's
// optimized-out value behind DW_OP_implicit_pointer, a caller's argument)
// is refused with the operation's name and why.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dwarf/place.h"
#include "util/result.h"

namespace kpp::dwarf {

struct ExpressionFormat {
  uint8_t address_size = 8;
  uint16_t version = 5;
  bool dwarf64 = false;
  bool little_endian = true;
};

// A base type an operation names by its offset in the unit
// (DW_OP_convert, DW_OP_regval_type, DW_OP_deref_type, DW_OP_const_type).
struct BaseType {
  unsigned bytes = 8;
  bool is_signed = false;
};

// CFA = DWARF register `reg` + `offset` (the rule at the probe's pc).
struct FrameRule {
  int reg = 0;
  int64_t offset = 0;
};

class ExpressionContext {
 public:
  virtual ~ExpressionContext() = default;
  // The bytes of the function's DW_AT_frame_base expression (DW_OP_fbreg).
  virtual Result<std::vector<uint8_t>> frame_base() = 0;
  // The CFA rule at the probe's pc (DW_OP_call_frame_cfa).
  virtual Result<FrameRule> call_frame_cfa() = 0;
  // Entry `index` of the unit's .debug_addr table (DW_OP_addrx, DW_OP_constx).
  virtual Result<uint64_t> indexed_address(uint64_t index) = 0;
  // The base type at `unit_offset` in the unit; 0 is the generic type.
  virtual Result<BaseType> base_type(uint64_t unit_offset) = 0;
  // Whether the probe's pc is the entry of the function the expression
  // belongs to (DW_OP_entry_value: there, an entry value is the register now).
  virtual bool at_function_entry() = 0;
};

// The Place the expression `bytes` describes at the context's pc.
// `value_bytes` is the size of the variable's type, for a load through a
// computed address (0 when unknown: 8 bytes).
Result<Place> evaluate_location(std::span<const uint8_t> bytes, const ExpressionFormat &format,
                                ExpressionContext &context, uint64_t value_bytes = 0);

}  // namespace kpp::dwarf
