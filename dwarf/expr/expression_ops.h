// The DWARF expression operations: their names and operand shapes (DWARF 5
// section 7.7.1, Table 7.9, and the GNU extensions gcc emits), and a bounded
// reader of one operation from raw bytes. Private to dwarf/.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace kpp::dwarf {

struct ExpressionFormat;

// One decoded operation.
struct Operation {
  uint8_t code = 0;
  size_t offset = 0;                 // of the opcode, in the expression
  size_t end = 0;                    // just past the operation
  uint64_t operand[3] = {0, 0, 0};   // in order; signed operands sign-extended
  std::span<const uint8_t> block;    // DW_OP_implicit_value, DW_OP_entry_value, DW_OP_const_type
};

// The operation at `offset` in `bytes`; nullopt when the opcode is unknown or
// its operands run past the end.
std::optional<Operation> read_operation(std::span<const uint8_t> bytes, size_t offset, const ExpressionFormat &format);

// "DW_OP_plus", "DW_OP_GNU_entry_value"; "DW_OP_0x.." for codes DWARF does not name.
std::string operation_name(uint8_t code);

}  // namespace kpp::dwarf
