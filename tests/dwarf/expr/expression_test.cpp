// Every DWARF 5 expression operation, and the GNU ones gcc emits, from raw
// bytes to the Place kprobe-probe fetches (or the refusal it prints). Places
// are written as text: "reg 5" (in rdi), "mem r7+16" (in memory at rsp+16),
// "= 7" (a known value), "value r3+-1" (rbx minus 1, added by the decoder),
// "value r5 prog k3M" (rdi times 3: the decoder's program, value_fixup.h).
#include <gtest/gtest.h>

#include <cstdio>

#include "dwarf/expr/expression.h"
#include "dwarf/expr/expression_ops.h"

namespace kpp::dwarf {
namespace {

std::string text_of(const FetchExpr &e) {
  std::string out;
  char buf[64];
  switch (e.root) {
    case FetchExpr::Root::Register: out = "r" + std::to_string(e.dwarf_reg); break;
    case FetchExpr::Root::EntryRegister: out = "entry(r" + std::to_string(e.dwarf_reg) + ")"; break;
    case FetchExpr::Root::GlobalMemory: std::snprintf(buf, sizeof buf, "@0x%llx", (unsigned long long)e.address); out = buf; break;
    case FetchExpr::Root::GlobalAddress: std::snprintf(buf, sizeof buf, "&0x%llx", (unsigned long long)e.address); out = buf; break;
    case FetchExpr::Root::Constant: out = "#" + std::to_string(e.constant); break;
    case FetchExpr::Root::InstructionPointer: out = "ip"; break;
  }
  for (int64_t l : e.loads) out += "[" + std::to_string(l) + "]";
  if (e.has_bits()) out += "{" + std::to_string(e.bit_offset) + ":" + std::to_string(e.bit_width) + "}";
  if (e.window) out += "w" + std::to_string(e.window);
  if (e.post_add) out += "+" + std::to_string(e.post_add);
  if (!e.terms.empty()) {
    out += " terms(";
    for (size_t i = 0; i < e.terms.size(); ++i) out += (i ? "," : "") + text_of(e.terms[i]);
    out += ")";
  }
  if (!e.program.empty()) {
    out += " prog ";
    for (const ValueStep &s : e.program) out += step_text(s);
  }
  return out;
}

std::string text_of(const Place &p) {
  switch (p.kind) {
    case Place::Kind::Register: return "reg " + std::to_string(p.dwarf_reg);
    case Place::Kind::Constant: return p.text ? "= \"" + *p.text + "\"" : "= " + std::to_string(p.constant);
    case Place::Kind::Value: return "value " + text_of(*p.base);
    case Place::Kind::Memory:
      if (!p.base) return "mem @" + std::to_string(p.offset);
      return "mem " + text_of(*p.base) + "+" + std::to_string(p.offset);
    case Place::Kind::Pieces: {
      std::string out = "pieces(";
      for (const Piece &piece : p.pieces)
        out += std::to_string(piece.size) + ":" + (piece.place.empty() ? "-" : text_of(piece.place.front())) + ";";
      return out + ")";
    }
  }
  return "?";
}

class FakeContext final : public ExpressionContext {
 public:
  std::vector<uint8_t> frame_base_bytes{0x9c};  // DW_OP_call_frame_cfa
  FrameRule cfa{7, 0x60};                       // rsp + 0x60
  bool at_entry = false;
  Result<std::vector<uint8_t>> frame_base() override { return frame_base_bytes; }
  Result<FrameRule> call_frame_cfa() override { return cfa; }
  Result<uint64_t> indexed_address(uint64_t index) override {
    if (index > 3) return Error("its address index " + std::to_string(index) + " is out of range");
    return 0x4000 + index * 0x10;
  }
  Result<BaseType> base_type(uint64_t offset) override {
    if (offset == 0x30) return BaseType{4, true};   // int
    if (offset == 0x38) return BaseType{1, false};  // unsigned char
    if (offset == 0x40) return BaseType{8, true};   // long
    return Error("its location expression converts to a type we cannot read");
  }
  bool at_function_entry() override { return at_entry; }
};

struct Row {
  const char *what;
  std::vector<uint8_t> bytes;
  std::string want;  // the Place's text, or "error: <message>"
  uint64_t value_bytes = 8;
};

std::string evaluate(const Row &row, FakeContext &context) {
  ExpressionFormat format;
  auto place = evaluate_location(row.bytes, format, context, row.value_bytes);
  return place ? text_of(*place) : "error: " + place.error().message;
}

// 8-byte little-endian operand bytes.
std::vector<uint8_t> u64(uint64_t v) {
  std::vector<uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return out;
}
std::vector<uint8_t> cat(std::vector<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (auto &p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

constexpr uint8_t SV = 0x9f;  // DW_OP_stack_value

TEST(Expression, EveryOperation) {
  const Row rows[] = {
      // Literals, constants and addresses.
      {"DW_OP_addr", cat({{0x03}, u64(0x4010)}), "mem @16400"},
      {"DW_OP_addr as a value", cat({{0x03}, u64(0x4010), {SV}}), "value &0x4010"},
      {"DW_OP_lit0", {0x30, SV}, "= 0"},
      {"DW_OP_lit31", {0x4f, SV}, "= 31"},
      {"DW_OP_const1u", {0x08, 0xff, SV}, "= 255"},
      {"DW_OP_const1s", {0x09, 0xff, SV}, "= -1"},
      {"DW_OP_const2u", {0x0a, 0x34, 0x12, SV}, "= 4660"},
      {"DW_OP_const2s", {0x0b, 0xfe, 0xff, SV}, "= -2"},
      {"DW_OP_const4u", {0x0c, 0x78, 0x56, 0x34, 0x12, SV}, "= 305419896"},
      {"DW_OP_const4s", {0x0d, 0xfd, 0xff, 0xff, 0xff, SV}, "= -3"},
      {"DW_OP_const8u", cat({{0x0e}, u64(1ull << 40), {SV}}), "= 1099511627776"},
      {"DW_OP_const8s", cat({{0x0f}, u64(uint64_t(-4)), {SV}}), "= -4"},
      {"DW_OP_constu", {0x10, 0xe5, 0x8e, 0x26, SV}, "= 624485"},
      {"DW_OP_consts", {0x11, 0x80, 0x7f, SV}, "= -128"},
      {"DW_OP_addrx", {0xa1, 0x02}, "mem @16416"},
      {"DW_OP_addrx out of range", {0xa1, 0x09}, "error: its address index 9 is out of range"},
      {"DW_OP_constx", {0xa2, 0x01, SV}, "= 16400"},
      {"DW_OP_GNU_addr_index", {0xfb, 0x01}, "mem @16400"},
      {"DW_OP_GNU_const_index", {0xfc, 0x00, SV}, "= 16384"},
      {"DW_OP_const_type", {0xa4, 0x30, 0x04, 0xff, 0xff, 0xff, 0xff, SV}, "= -1"},
      {"DW_OP_GNU_const_type", {0xf4, 0x38, 0x01, 0x07, SV}, "= 7"},
      // Registers.
      {"DW_OP_reg0", {0x50}, "reg 0"},
      {"DW_OP_reg31", {0x6f}, "reg 31"},
      {"DW_OP_regx", {0x90, 0x21}, "reg 33"},
      {"DW_OP_breg7", {0x77, 0x10}, "mem r7+16"},
      {"DW_OP_breg3 as a value", {0x73, 0x7f, SV}, "value r3+-1"},
      {"DW_OP_bregx", {0x92, 0x21, 0x08}, "mem r33+8"},
      {"DW_OP_bregx as a value", {0x92, 0x05, 0x00, SV}, "reg 5"},
      {"DW_OP_fbreg (frame base = CFA)", {0x91, 0x70}, "mem r7+80"},
      {"DW_OP_call_frame_cfa", {0x9c, SV}, "value r7+96"},
      {"DW_OP_regval_type", {0xa5, 0x05, 0x30, SV}, "value r5{0:32}", 4},
      {"DW_OP_GNU_regval_type", {0xf5, 0x05, 0x38, SV}, "value r5{0:8}", 1},
      // Stack operations (on constants: they fold).
      {"DW_OP_dup", {0x33, 0x12, 0x22, SV}, "= 6"},
      {"DW_OP_drop", {0x31, 0x32, 0x13, SV}, "= 1"},
      {"DW_OP_over", {0x31, 0x32, 0x14, SV}, "= 1"},
      {"DW_OP_pick", {0x31, 0x32, 0x33, 0x15, 0x02, SV}, "= 1"},
      {"DW_OP_swap", {0x31, 0x32, 0x16, 0x1c, SV}, "= 1"},
      {"DW_OP_rot", {0x31, 0x32, 0x33, 0x17, 0x13, 0x13, SV}, "= 3"},  // 1 2 3 -> 3 1 2
      // Arithmetic and logic on constants.
      {"DW_OP_abs", {0x09, 0xf9, 0x19, SV}, "= 7"},
      {"DW_OP_and", {0x3c, 0x3a, 0x1a, SV}, "= 8"},
      {"DW_OP_div", {0x09, 0xf9, 0x32, 0x1b, SV}, "= -3"},
      {"DW_OP_div by zero", {0x31, 0x30, 0x1b, SV}, "error: DW_OP_div by zero"},
      {"DW_OP_minus", {0x35, 0x37, 0x1c, SV}, "= -2"},
      {"DW_OP_mod", {0x37, 0x33, 0x1d, SV}, "= 1"},
      {"DW_OP_mul", {0x36, 0x37, 0x1e, SV}, "= 42"},
      {"DW_OP_neg", {0x35, 0x1f, SV}, "= -5"},
      {"DW_OP_not", {0x30, 0x20, SV}, "= -1"},
      {"DW_OP_or", {0x3a, 0x35, 0x21, SV}, "= 15"},
      {"DW_OP_plus", {0x35, 0x37, 0x22, SV}, "= 12"},
      {"DW_OP_plus_uconst", {0x35, 0x23, 0x80, 0x01, SV}, "= 133"},
      {"DW_OP_shl", {0x33, 0x34, 0x24, SV}, "= 48"},
      {"DW_OP_shr", {0x09, 0xf0, 0x34, 0x25, SV}, "= 1152921504606846975"},
      {"DW_OP_shra", {0x09, 0xf0, 0x34, 0x26, SV}, "= -1"},
      {"DW_OP_xor", {0x3a, 0x3f, 0x27, SV}, "= 5"},
      {"DW_OP_eq", {0x35, 0x35, 0x29, SV}, "= 1"},
      {"DW_OP_ge", {0x34, 0x35, 0x2a, SV}, "= 0"},
      {"DW_OP_gt", {0x35, 0x09, 0xff, 0x2b, SV}, "= 1"},
      {"DW_OP_le", {0x35, 0x35, 0x2c, SV}, "= 1"},
      {"DW_OP_lt", {0x09, 0xff, 0x30, 0x2d, SV}, "= 1"},
      {"DW_OP_ne", {0x35, 0x35, 0x2e, SV}, "= 0"},
      {"DW_OP_convert to int", {0x0c, 0xff, 0xff, 0xff, 0xff, 0xa8, 0x30, SV}, "= -1"},
      {"DW_OP_GNU_convert to unsigned char", {0x0a, 0x34, 0x12, 0xf7, 0x38, SV}, "= 52"},
      {"DW_OP_reinterpret", {0x35, 0xa9, 0x40, SV}, "= 5"},
      {"DW_OP_GNU_reinterpret", {0x35, 0xf9, 0x40, SV}, "= 5"},
      // Control flow.
      {"DW_OP_skip", {0x31, 0x2f, 0x01, 0x00, 0x13, SV}, "= 1"},
      {"DW_OP_bra taken", {0x35, 0x31, 0x28, 0x01, 0x00, 0x13, SV}, "= 5"},
      {"DW_OP_bra not taken", {0x35, 0x30, 0x28, 0x01, 0x00, 0x13, SV}, "error: its location expression is empty"},
      {"DW_OP_skip backwards (a loop) is bounded", {0x2f, 0xfd, 0xff}, "error: its location expression runs too long (a loop?)"},
      // Arithmetic on run-time values: the decoder's program.
      {"mul", {0x75, 0x00, 0x33, 0x1e, SV}, "value r5 prog k3M"},
      {"div", {0x75, 0x00, 0x34, 0x1b, SV}, "value r5 prog k4D"},
      {"mod", {0x75, 0x00, 0x34, 0x1d, SV}, "value r5 prog k4V"},
      {"xor of two registers", {0x75, 0x00, 0x74, 0x00, 0x27, SV}, "value r5 terms(r4) prog r1X"},
      {"or", {0x75, 0x00, 0x08, 0x80, 0x21, SV}, "value r5 prog k80O"},
      {"and with a mask of low bits: the kernel's bitfield", {0x75, 0x00, 0x08, 0xff, 0x1a, SV}, "value r5{0:8}", 1},
      {"and with another mask", {0x75, 0x00, 0x08, 0xf0, 0x1a, SV}, "value r5 prog kf0B"},
      {"neg", {0x75, 0x00, 0x1f, SV}, "value r5 prog N"},
      {"not", {0x75, 0x00, 0x20, SV}, "value r5 prog T"},
      {"abs", {0x75, 0x00, 0x19, SV}, "value r5 prog Z"},
      {"shr: the kernel's bitfield", {0x75, 0x00, 0x08, 0x20, 0x25, SV}, "value r5{32:32}", 4},
      {"shra", {0x75, 0x00, 0x08, 0x20, 0x26, SV}, "value r5 prog k20H"},
      {"shl then shra: an int widened", {0x75, 0x00, 0x08, 0x20, 0x24, 0x08, 0x20, 0x26, SV}, "value r5 prog k20Lk20H"},
      {"shl by a register", {0x75, 0x00, 0x72, 0x00, 0x24, SV}, "value r5 terms(r2) prog r1L"},
      {"lt", {0x75, 0x00, 0x74, 0x00, 0x2d, SV}, "value r5 terms(r4) prog r1C"},
      {"eq to a constant", {0x75, 0x00, 0x30, 0x29, SV}, "value r5 prog k0E"},
      {"difference of two loads", {0x75, 0x14, 0x06, 0x75, 0x10, 0x06, 0x1c, SV}, "value r5[20] terms(r5[16]) prog r1S"},
      {"a constant first", {0x33, 0x75, 0x00, 0x1c, SV}, "value r5 prog k3r0S"},
      {"dup of a register", {0x75, 0x00, 0x12, 0x1e, SV}, "value r5 prog r0M"},
      {"swap", {0x75, 0x00, 0x33, 0x16, 0x1c, SV}, "value r5 prog k3r0S"},
      {"DW_OP_bra on a register: both ways, chosen by the decoder",
       {0x75, 0x00, 0x28, 0x04, 0x00, 0x33, 0x2f, 0x01, 0x00, 0x37, SV}, "value r5 prog w2k3i1k7"},
      {"convert of a sum to int", {0x75, 0x01, 0xa8, 0x30, SV}, "value r5 prog p1s32", 8},
      // Loads.
      {"DW_OP_deref", {0x77, 0x08, 0x06}, "mem r7[8]+0"},
      {"DW_OP_deref as a value", {0x77, 0x08, 0x06, SV}, "mem r7+8"},
      {"DW_OP_deref_size on the way", {0x75, 0x00, 0x94, 0x04, 0x23, 0x01, SV}, "value r5[0]{0:32}+1", 4},
      {"DW_OP_deref_size narrower than the variable", {0x75, 0x00, 0x94, 0x04, SV}, "value r5[0] prog u32", 8},
      {"DW_OP_deref_type", {0x75, 0x00, 0xa6, 0x04, 0x30, SV}, "value r5[0]{0:32}", 4},
      {"DW_OP_GNU_deref_type", {0x75, 0x00, 0xf6, 0x01, 0x38, SV}, "value r5[0]{0:8}", 1},
      {"a load through a computed address: from the stack frame",
       {0x71, 0x00, 0x33, 0x24, 0x91, 0x00, 0x22, 0x08, 0x50, 0x1c}, "value r1 terms(r7,r7[-128]w224) prog k3Lr1p60Am50r1m80x82"},
      {"deref through a computed address", {0x71, 0x00, 0x33, 0x1e, 0x06, SV}, "value r1 terms(r7,r7[-128]w224) prog k3Mr1m80x82"},
      // Locations of other kinds.
      {"DW_OP_piece", {0x50, 0x93, 0x04, 0x51, 0x93, 0x04}, "pieces(4:reg 0;4:reg 1;)"},
      {"DW_OP_piece with a hole", {0x93, 0x04, 0x51, 0x93, 0x04}, "pieces(4:-;4:reg 1;)"},
      {"DW_OP_bit_piece", {0x50, 0x9d, 0x20, 0x00, 0x51, 0x9d, 0x20, 0x00}, "pieces(4:reg 0;4:reg 1;)"},
      {"DW_OP_bit_piece at a bit offset", {0x50, 0x9d, 0x03, 0x02}, "error: DW_OP_bit_piece of bits not on a byte boundary is not supported"},
      {"DW_OP_implicit_value", {0x9e, 0x04, 0x2a, 0x00, 0x00, 0x00}, "= 42"},
      {"DW_OP_stack_value", {0x35, SV}, "= 5"},
      {"DW_OP_nop", {0x96, 0x35, 0x96, SV}, "= 5"},
      {"DW_OP_GNU_uninit", {0x50, 0xf0}, "reg 0"},
      {"DW_OP_entry_value away from the entry", {0xa3, 0x01, 0x55, SV}, "value entry(r5)"},
      {"DW_OP_GNU_entry_value minus one", {0xf3, 0x01, 0x53, 0x31, 0x1c, SV}, "value entry(r3)+-1"},
      {"DW_OP_entry_value of regx", {0xa3, 0x02, 0x90, 0x05, SV}, "value entry(r5)"},
      {"DW_OP_entry_value of memory", {0xa3, 0x03, 0x77, 0x08, 0x06, SV},
       "error: DW_OP_entry_value of something other than a register is not supported"},
      {"an entry value and a value here", {0xa3, 0x01, 0x55, 0x74, 0x00, 0x1e, SV},
       "error: its value is computed from a register's value at the function's entry (DW_OP_entry_value, read by a companion probe there) and a value at this probe; the decoder finishes a value from the fields of one event, and these come in two"},
      // Refused, each with why.
      {"DW_OP_xderef", {0x31, 0x32, 0x18}, "error: DW_OP_xderef (an address space) is not supported"},
      {"DW_OP_xderef_size", {0x31, 0x32, 0x95, 0x04}, "error: DW_OP_xderef_size (an address space) is not supported"},
      {"DW_OP_xderef_type", {0x31, 0x32, 0xa7, 0x04, 0x30}, "error: DW_OP_xderef_type (an address space) is not supported"},
      {"DW_OP_push_object_address", {0x97}, "error: DW_OP_push_object_address is not supported: a variable's location has no object to push"},
      {"DW_OP_call2", {0x98, 0x10, 0x00}, "error: DW_OP_call2 (a call to another DIE's expression) is not supported"},
      {"DW_OP_call4", {0x99, 0x10, 0x00, 0x00, 0x00}, "error: DW_OP_call4 (a call to another DIE's expression) is not supported"},
      {"DW_OP_call_ref", {0x9a, 0x10, 0x00, 0x00, 0x00}, "error: DW_OP_call_ref (a call to another DIE's expression) is not supported"},
      {"DW_OP_form_tls_address", {0x30, 0x9b}, "error: DW_OP_form_tls_address (a thread-local variable) is not supported: a probe cannot find the thread's TLS block"},
      {"DW_OP_GNU_push_tls_address", {0x30, 0xe0}, "error: DW_OP_GNU_push_tls_address (a thread-local variable) is not supported: a probe cannot find the thread's TLS block"},
      {"DW_OP_implicit_pointer", {0xa0, 0x10, 0x00, 0x00, 0x00, 0x00}, "error: DW_OP_implicit_pointer (a pointer to a value the compiler kept out of memory) is not supported: there is no address to fetch"},
      {"DW_OP_GNU_implicit_pointer", {0xf2, 0x10, 0x00, 0x00, 0x00, 0x00}, "error: DW_OP_GNU_implicit_pointer (a pointer to a value the compiler kept out of memory) is not supported: there is no address to fetch"},
      {"DW_OP_GNU_parameter_ref", {0xfa, 0x10, 0x00, 0x00, 0x00}, "error: DW_OP_GNU_parameter_ref (a value the caller passed, from its call site) is not supported"},
      {"DW_OP_GNU_variable_value", {0xfd, 0x10, 0x00, 0x00, 0x00}, "error: DW_OP_GNU_variable_value (another variable's value) is not supported"},
      {"DW_OP_GNU_encoded_addr", {0xf1, 0x00}, "error: DW_OP_GNU_encoded_addr is not supported"},
      // Malformed input.
      {"an unknown opcode", {0xff}, "error: its location expression has an unknown operation DW_OP_0xff"},
      {"a truncated operand", {0x0c, 0x01}, "error: its location expression is malformed"},
      {"a block past the end", {0x9e, 0x09, 0x01}, "error: its location expression is malformed"},
      {"plus on an empty stack", {0x22}, "error: its location expression is malformed"},
      {"a jump out of the expression", {0x2f, 0x10, 0x00}, "error: its location expression is malformed"},
      {"a register after a register", {0x50, 0x51}, "error: DW_OP_reg1 after a register location"},
  };
  for (const Row &row : rows) {
    FakeContext context;
    EXPECT_EQ(evaluate(row, context), row.want) << row.what;
  }
}

TEST(Expression, EntryValueAtTheEntryIsTheRegister) {
  FakeContext context;
  context.at_entry = true;
  EXPECT_EQ(evaluate({"", {0xa3, 0x01, 0x55, SV}, ""}, context), "reg 5");
}

TEST(Expression, FrameBaseIsItselfAnExpression) {
  FakeContext context;
  context.frame_base_bytes = {0x56};  // DW_OP_reg6: rbp's value is the base
  EXPECT_EQ(evaluate({"", {0x91, 0x70}, ""}, context), "mem r6+-16");
  context.frame_base_bytes = {0x91, 0x00};
  EXPECT_EQ(evaluate({"", {0x91, 0x70}, ""}, context), "error: its function's frame base: DW_OP_fbreg refers to the frame base itself");
}

TEST(Expression, OperationNames) {
  EXPECT_EQ(operation_name(0x22), "DW_OP_plus");
  EXPECT_EQ(operation_name(0xf3), "DW_OP_GNU_entry_value");
  EXPECT_EQ(operation_name(0x01), "DW_OP_0x01");
  // Every named operation's operands are read without running past the end.
  ExpressionFormat format;
  for (int code = 0; code < 256; ++code) {
    std::vector<uint8_t> alone{static_cast<uint8_t>(code)};
    auto op = read_operation(alone, 0, format);
    if (op) {
      EXPECT_EQ(op->end, 1u) << operation_name(static_cast<uint8_t>(code));
    }
  }
}

}  // namespace
}  // namespace kpp::dwarf
