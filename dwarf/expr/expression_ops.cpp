#include "dwarf/expr/expression_ops.h"

#include <array>
#include <cstdio>
#include <string_view>

#include "dwarf/expr/expression.h"

namespace kpp::dwarf {

namespace {

enum class Shape : uint8_t {
  None,
  U8, S8, U16, S16, U32, S32, U64, S64,
  Uleb, Sleb,
  Address,     // address_size bytes
  Reference,   // a .debug_info offset: 4 or 8 bytes (address_size in DWARF 2)
  Block,       // ULEB128 length, then the bytes
  SizedBlock,  // 1-byte length, then the bytes (DW_OP_const_type)
};

struct OpInfo {
  const char *name = nullptr;
  Shape a = Shape::None, b = Shape::None, c = Shape::None;
};

using OpTable = std::array<OpInfo, 256>;

constexpr void set(OpTable &t, unsigned code, const char *name, Shape a = Shape::None, Shape b = Shape::None,
                   Shape c = Shape::None) {
  t[code] = {name, a, b, c};
}

// The names of a family of 32 numbered operations, "DW_OP_lit0" to
// "DW_OP_lit31", made at compile time.
struct NumberedNames {
  char names[32][16] = {};
  constexpr explicit NumberedNames(std::string_view family) {
    for (unsigned n = 0; n < 32; ++n) {
      size_t at = 0;
      for (char c : std::string_view("DW_OP_")) names[n][at++] = c;
      for (char c : family) names[n][at++] = c;
      if (n >= 10) names[n][at++] = static_cast<char>('0' + n / 10);
      names[n][at++] = static_cast<char>('0' + n % 10);
    }
  }
};
constexpr NumberedNames kLitNames("lit"), kRegNames("reg"), kBregNames("breg");

// DWARF 5 section 2.5.1.1.
constexpr void set_literals(OpTable &t) {
  for (unsigned i = 0; i < 32; ++i) set(t, 0x30 + i, kLitNames.names[i]);
  set(t, 0x03, "DW_OP_addr", Shape::Address);
  set(t, 0x08, "DW_OP_const1u", Shape::U8);
  set(t, 0x09, "DW_OP_const1s", Shape::S8);
  set(t, 0x0a, "DW_OP_const2u", Shape::U16);
  set(t, 0x0b, "DW_OP_const2s", Shape::S16);
  set(t, 0x0c, "DW_OP_const4u", Shape::U32);
  set(t, 0x0d, "DW_OP_const4s", Shape::S32);
  set(t, 0x0e, "DW_OP_const8u", Shape::U64);
  set(t, 0x0f, "DW_OP_const8s", Shape::S64);
  set(t, 0x10, "DW_OP_constu", Shape::Uleb);
  set(t, 0x11, "DW_OP_consts", Shape::Sleb);
  set(t, 0xa1, "DW_OP_addrx", Shape::Uleb);
  set(t, 0xa2, "DW_OP_constx", Shape::Uleb);
  set(t, 0xa4, "DW_OP_const_type", Shape::Uleb, Shape::SizedBlock);
}

// DWARF 5 section 2.5.1.2.
constexpr void set_register_values(OpTable &t) {
  for (unsigned i = 0; i < 32; ++i) set(t, 0x70 + i, kBregNames.names[i], Shape::Sleb);
  set(t, 0x91, "DW_OP_fbreg", Shape::Sleb);
  set(t, 0x92, "DW_OP_bregx", Shape::Uleb, Shape::Sleb);
  set(t, 0xa5, "DW_OP_regval_type", Shape::Uleb, Shape::Uleb);
}

// DWARF 5 section 2.5.1.3: moves on the stack and loads.
constexpr void set_stack_operations(OpTable &t) {
  set(t, 0x06, "DW_OP_deref");
  set(t, 0x12, "DW_OP_dup");
  set(t, 0x13, "DW_OP_drop");
  set(t, 0x14, "DW_OP_over");
  set(t, 0x15, "DW_OP_pick", Shape::U8);
  set(t, 0x16, "DW_OP_swap");
  set(t, 0x17, "DW_OP_rot");
  set(t, 0x18, "DW_OP_xderef");
  set(t, 0x94, "DW_OP_deref_size", Shape::U8);
  set(t, 0x95, "DW_OP_xderef_size", Shape::U8);
  set(t, 0x97, "DW_OP_push_object_address");
  set(t, 0x9b, "DW_OP_form_tls_address");
  set(t, 0x9c, "DW_OP_call_frame_cfa");
  set(t, 0xa6, "DW_OP_deref_type", Shape::U8, Shape::Uleb);
  set(t, 0xa7, "DW_OP_xderef_type", Shape::U8, Shape::Uleb);
}

// DWARF 5 section 2.5.1.4.
constexpr void set_arithmetic(OpTable &t) {
  set(t, 0x19, "DW_OP_abs");
  set(t, 0x1a, "DW_OP_and");
  set(t, 0x1b, "DW_OP_div");
  set(t, 0x1c, "DW_OP_minus");
  set(t, 0x1d, "DW_OP_mod");
  set(t, 0x1e, "DW_OP_mul");
  set(t, 0x1f, "DW_OP_neg");
  set(t, 0x20, "DW_OP_not");
  set(t, 0x21, "DW_OP_or");
  set(t, 0x22, "DW_OP_plus");
  set(t, 0x23, "DW_OP_plus_uconst", Shape::Uleb);
  set(t, 0x24, "DW_OP_shl");
  set(t, 0x25, "DW_OP_shr");
  set(t, 0x26, "DW_OP_shra");
  set(t, 0x27, "DW_OP_xor");
}

// DWARF 5 section 2.5.1.5: comparisons, jumps and calls.
constexpr void set_control_flow(OpTable &t) {
  set(t, 0x28, "DW_OP_bra", Shape::S16);
  set(t, 0x29, "DW_OP_eq");
  set(t, 0x2a, "DW_OP_ge");
  set(t, 0x2b, "DW_OP_gt");
  set(t, 0x2c, "DW_OP_le");
  set(t, 0x2d, "DW_OP_lt");
  set(t, 0x2e, "DW_OP_ne");
  set(t, 0x2f, "DW_OP_skip", Shape::S16);
  set(t, 0x98, "DW_OP_call2", Shape::U16);
  set(t, 0x99, "DW_OP_call4", Shape::U32);
  set(t, 0x9a, "DW_OP_call_ref", Shape::Reference);
}

// DWARF 5 sections 2.5.1.6 and 2.5.1.7.
constexpr void set_conversions_and_special(OpTable &t) {
  set(t, 0xa8, "DW_OP_convert", Shape::Uleb);
  set(t, 0xa9, "DW_OP_reinterpret", Shape::Uleb);
  set(t, 0x96, "DW_OP_nop");
  set(t, 0xa3, "DW_OP_entry_value", Shape::Block);
}

// DWARF 5 section 2.6.1: what ends a location description (a register, an
// implicit value) and the pieces of a composite one.
constexpr void set_location_descriptions(OpTable &t) {
  for (unsigned i = 0; i < 32; ++i) set(t, 0x50 + i, kRegNames.names[i]);
  set(t, 0x90, "DW_OP_regx", Shape::Uleb);
  set(t, 0x93, "DW_OP_piece", Shape::Uleb);
  set(t, 0x9d, "DW_OP_bit_piece", Shape::Uleb, Shape::Uleb);
  set(t, 0x9e, "DW_OP_implicit_value", Shape::Block);
  set(t, 0x9f, "DW_OP_stack_value");
  set(t, 0xa0, "DW_OP_implicit_pointer", Shape::Reference, Shape::Sleb);
}

// The GNU operations gcc emits (most became DWARF 5's under other codes).
constexpr void set_gnu_extensions(OpTable &t) {
  set(t, 0xe0, "DW_OP_GNU_push_tls_address");
  set(t, 0xf0, "DW_OP_GNU_uninit");
  set(t, 0xf1, "DW_OP_GNU_encoded_addr");  // operands depend on a pointer encoding: refused when read
  set(t, 0xf2, "DW_OP_GNU_implicit_pointer", Shape::Reference, Shape::Sleb);
  set(t, 0xf3, "DW_OP_GNU_entry_value", Shape::Block);
  set(t, 0xf4, "DW_OP_GNU_const_type", Shape::Uleb, Shape::SizedBlock);
  set(t, 0xf5, "DW_OP_GNU_regval_type", Shape::Uleb, Shape::Uleb);
  set(t, 0xf6, "DW_OP_GNU_deref_type", Shape::U8, Shape::Uleb);
  set(t, 0xf7, "DW_OP_GNU_convert", Shape::Uleb);
  set(t, 0xf9, "DW_OP_GNU_reinterpret", Shape::Uleb);
  set(t, 0xfa, "DW_OP_GNU_parameter_ref", Shape::U32);
  set(t, 0xfb, "DW_OP_GNU_addr_index", Shape::Uleb);
  set(t, 0xfc, "DW_OP_GNU_const_index", Shape::Uleb);
  set(t, 0xfd, "DW_OP_GNU_variable_value", Shape::Reference);
}

constexpr OpTable make_table() {
  OpTable t{};
  set_literals(t);
  set_register_values(t);
  set_stack_operations(t);
  set_arithmetic(t);
  set_control_flow(t);
  set_conversions_and_special(t);
  set_location_descriptions(t);
  set_gnu_extensions(t);
  return t;
}

constexpr OpTable kOps = make_table();

// A bounded little- or big-endian reader.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, size_t at, bool little_endian) : bytes_(bytes), at_(at), le_(little_endian) {}
  bool ok() const { return ok_; }
  size_t at() const { return at_; }

  uint64_t fixed(unsigned n) {
    if (!room(n)) return 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) {
      uint64_t byte = bytes_[at_ + i];
      v |= le_ ? byte << (8 * i) : byte << (8 * (n - 1 - i));
    }
    at_ += n;
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!room(1)) return 0;
      uint8_t byte = bytes_[at_++];
      if (shift < 64) v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
      if (shift > 70) return fail();
    }
  }
  uint64_t sleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!room(1)) return 0;
      uint8_t byte = bytes_[at_++];
      if (shift < 64) v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        if (shift + 7 < 64 && (byte & 0x40)) v |= ~uint64_t{0} << (shift + 7);
        return v;
      }
      if (shift > 70) return fail();
    }
  }
  std::span<const uint8_t> take(uint64_t n) {
    if (!room(n)) return {};
    auto out = bytes_.subspan(at_, static_cast<size_t>(n));
    at_ += static_cast<size_t>(n);
    return out;
  }

 private:
  bool room(uint64_t n) {
    if (ok_ && n <= bytes_.size() - at_) return true;
    ok_ = false;
    return false;
  }
  uint64_t fail() {
    ok_ = false;
    return 0;
  }
  std::span<const uint8_t> bytes_;
  size_t at_;
  bool le_;
  bool ok_ = true;
};

uint64_t sign_extend(uint64_t v, unsigned bytes) {
  unsigned shift = 64 - 8 * bytes;
  return static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
}

}  // namespace

std::optional<Operation> read_operation(std::span<const uint8_t> bytes, size_t offset, const ExpressionFormat &format) {
  if (offset >= bytes.size()) return std::nullopt;
  Operation op;
  op.code = bytes[offset];
  op.offset = offset;
  const OpInfo &info = kOps[op.code];
  if (!info.name || op.code == 0xf1) return std::nullopt;
  Reader r(bytes, offset + 1, format.little_endian);
  const Shape shapes[3] = {info.a, info.b, info.c};
  for (int i = 0; i < 3; ++i) {
    uint64_t &v = op.operand[i];
    switch (shapes[i]) {
      case Shape::None: break;
      case Shape::U8: v = r.fixed(1); break;
      case Shape::S8: v = sign_extend(r.fixed(1), 1); break;
      case Shape::U16: v = r.fixed(2); break;
      case Shape::S16: v = sign_extend(r.fixed(2), 2); break;
      case Shape::U32: v = r.fixed(4); break;
      case Shape::S32: v = sign_extend(r.fixed(4), 4); break;
      case Shape::U64:
      case Shape::S64: v = r.fixed(8); break;
      case Shape::Uleb: v = r.uleb(); break;
      case Shape::Sleb: v = r.sleb(); break;
      case Shape::Address:
        if (format.address_size != 1 && format.address_size != 2 && format.address_size != 4 && format.address_size != 8)
          return std::nullopt;
        v = r.fixed(format.address_size);
        break;
      case Shape::Reference:
        v = r.fixed(format.version <= 2 ? format.address_size : format.dwarf64 ? 8 : 4);
        break;
      case Shape::Block:
        v = r.uleb();
        op.block = r.take(v);
        break;
      case Shape::SizedBlock:
        v = r.fixed(1);
        op.block = r.take(v);
        break;
    }
  }
  if (!r.ok()) return std::nullopt;
  op.end = r.at();
  return op;
}

std::string operation_name(uint8_t code) {
  if (kOps[code].name) return kOps[code].name;
  char buf[16];
  std::snprintf(buf, sizeof buf, "DW_OP_0x%02x", code);
  return buf;
}

}  // namespace kpp::dwarf
