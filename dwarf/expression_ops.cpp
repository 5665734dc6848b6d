#include "dwarf/expression_ops.h"

#include <array>
#include <cstdio>

#include "dwarf/expression.h"

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

constexpr std::array<OpInfo, 256> make_table() {
  std::array<OpInfo, 256> t{};
  auto set = [&](unsigned code, const char *name, Shape a = Shape::None, Shape b = Shape::None, Shape c = Shape::None) {
    t[code] = {name, a, b, c};
  };
  set(0x03, "DW_OP_addr", Shape::Address);
  set(0x06, "DW_OP_deref");
  set(0x08, "DW_OP_const1u", Shape::U8);
  set(0x09, "DW_OP_const1s", Shape::S8);
  set(0x0a, "DW_OP_const2u", Shape::U16);
  set(0x0b, "DW_OP_const2s", Shape::S16);
  set(0x0c, "DW_OP_const4u", Shape::U32);
  set(0x0d, "DW_OP_const4s", Shape::S32);
  set(0x0e, "DW_OP_const8u", Shape::U64);
  set(0x0f, "DW_OP_const8s", Shape::S64);
  set(0x10, "DW_OP_constu", Shape::Uleb);
  set(0x11, "DW_OP_consts", Shape::Sleb);
  set(0x12, "DW_OP_dup");
  set(0x13, "DW_OP_drop");
  set(0x14, "DW_OP_over");
  set(0x15, "DW_OP_pick", Shape::U8);
  set(0x16, "DW_OP_swap");
  set(0x17, "DW_OP_rot");
  set(0x18, "DW_OP_xderef");
  set(0x19, "DW_OP_abs");
  set(0x1a, "DW_OP_and");
  set(0x1b, "DW_OP_div");
  set(0x1c, "DW_OP_minus");
  set(0x1d, "DW_OP_mod");
  set(0x1e, "DW_OP_mul");
  set(0x1f, "DW_OP_neg");
  set(0x20, "DW_OP_not");
  set(0x21, "DW_OP_or");
  set(0x22, "DW_OP_plus");
  set(0x23, "DW_OP_plus_uconst", Shape::Uleb);
  set(0x24, "DW_OP_shl");
  set(0x25, "DW_OP_shr");
  set(0x26, "DW_OP_shra");
  set(0x27, "DW_OP_xor");
  set(0x28, "DW_OP_bra", Shape::S16);
  set(0x29, "DW_OP_eq");
  set(0x2a, "DW_OP_ge");
  set(0x2b, "DW_OP_gt");
  set(0x2c, "DW_OP_le");
  set(0x2d, "DW_OP_lt");
  set(0x2e, "DW_OP_ne");
  set(0x2f, "DW_OP_skip", Shape::S16);
  constexpr const char *lit[] = {"DW_OP_lit0", "DW_OP_lit1", "DW_OP_lit2", "DW_OP_lit3", "DW_OP_lit4", "DW_OP_lit5",
                                 "DW_OP_lit6", "DW_OP_lit7", "DW_OP_lit8", "DW_OP_lit9", "DW_OP_lit10", "DW_OP_lit11",
                                 "DW_OP_lit12", "DW_OP_lit13", "DW_OP_lit14", "DW_OP_lit15", "DW_OP_lit16", "DW_OP_lit17",
                                 "DW_OP_lit18", "DW_OP_lit19", "DW_OP_lit20", "DW_OP_lit21", "DW_OP_lit22", "DW_OP_lit23",
                                 "DW_OP_lit24", "DW_OP_lit25", "DW_OP_lit26", "DW_OP_lit27", "DW_OP_lit28", "DW_OP_lit29",
                                 "DW_OP_lit30", "DW_OP_lit31"};
  constexpr const char *reg[] = {"DW_OP_reg0", "DW_OP_reg1", "DW_OP_reg2", "DW_OP_reg3", "DW_OP_reg4", "DW_OP_reg5",
                                 "DW_OP_reg6", "DW_OP_reg7", "DW_OP_reg8", "DW_OP_reg9", "DW_OP_reg10", "DW_OP_reg11",
                                 "DW_OP_reg12", "DW_OP_reg13", "DW_OP_reg14", "DW_OP_reg15", "DW_OP_reg16", "DW_OP_reg17",
                                 "DW_OP_reg18", "DW_OP_reg19", "DW_OP_reg20", "DW_OP_reg21", "DW_OP_reg22", "DW_OP_reg23",
                                 "DW_OP_reg24", "DW_OP_reg25", "DW_OP_reg26", "DW_OP_reg27", "DW_OP_reg28", "DW_OP_reg29",
                                 "DW_OP_reg30", "DW_OP_reg31"};
  constexpr const char *breg[] = {
      "DW_OP_breg0",  "DW_OP_breg1",  "DW_OP_breg2",  "DW_OP_breg3",  "DW_OP_breg4",  "DW_OP_breg5",  "DW_OP_breg6",
      "DW_OP_breg7",  "DW_OP_breg8",  "DW_OP_breg9",  "DW_OP_breg10", "DW_OP_breg11", "DW_OP_breg12", "DW_OP_breg13",
      "DW_OP_breg14", "DW_OP_breg15", "DW_OP_breg16", "DW_OP_breg17", "DW_OP_breg18", "DW_OP_breg19", "DW_OP_breg20",
      "DW_OP_breg21", "DW_OP_breg22", "DW_OP_breg23", "DW_OP_breg24", "DW_OP_breg25", "DW_OP_breg26", "DW_OP_breg27",
      "DW_OP_breg28", "DW_OP_breg29", "DW_OP_breg30", "DW_OP_breg31"};
  for (unsigned i = 0; i < 32; ++i) {
    set(0x30 + i, lit[i]);
    set(0x50 + i, reg[i]);
    set(0x70 + i, breg[i], Shape::Sleb);
  }
  set(0x90, "DW_OP_regx", Shape::Uleb);
  set(0x91, "DW_OP_fbreg", Shape::Sleb);
  set(0x92, "DW_OP_bregx", Shape::Uleb, Shape::Sleb);
  set(0x93, "DW_OP_piece", Shape::Uleb);
  set(0x94, "DW_OP_deref_size", Shape::U8);
  set(0x95, "DW_OP_xderef_size", Shape::U8);
  set(0x96, "DW_OP_nop");
  set(0x97, "DW_OP_push_object_address");
  set(0x98, "DW_OP_call2", Shape::U16);
  set(0x99, "DW_OP_call4", Shape::U32);
  set(0x9a, "DW_OP_call_ref", Shape::Reference);
  set(0x9b, "DW_OP_form_tls_address");
  set(0x9c, "DW_OP_call_frame_cfa");
  set(0x9d, "DW_OP_bit_piece", Shape::Uleb, Shape::Uleb);
  set(0x9e, "DW_OP_implicit_value", Shape::Block);
  set(0x9f, "DW_OP_stack_value");
  set(0xa0, "DW_OP_implicit_pointer", Shape::Reference, Shape::Sleb);
  set(0xa1, "DW_OP_addrx", Shape::Uleb);
  set(0xa2, "DW_OP_constx", Shape::Uleb);
  set(0xa3, "DW_OP_entry_value", Shape::Block);
  set(0xa4, "DW_OP_const_type", Shape::Uleb, Shape::SizedBlock);
  set(0xa5, "DW_OP_regval_type", Shape::Uleb, Shape::Uleb);
  set(0xa6, "DW_OP_deref_type", Shape::U8, Shape::Uleb);
  set(0xa7, "DW_OP_xderef_type", Shape::U8, Shape::Uleb);
  set(0xa8, "DW_OP_convert", Shape::Uleb);
  set(0xa9, "DW_OP_reinterpret", Shape::Uleb);
  set(0xe0, "DW_OP_GNU_push_tls_address");
  set(0xf0, "DW_OP_GNU_uninit");
  set(0xf1, "DW_OP_GNU_encoded_addr");  // operands depend on a pointer encoding: refused when read
  set(0xf2, "DW_OP_GNU_implicit_pointer", Shape::Reference, Shape::Sleb);
  set(0xf3, "DW_OP_GNU_entry_value", Shape::Block);
  set(0xf4, "DW_OP_GNU_const_type", Shape::Uleb, Shape::SizedBlock);
  set(0xf5, "DW_OP_GNU_regval_type", Shape::Uleb, Shape::Uleb);
  set(0xf6, "DW_OP_GNU_deref_type", Shape::U8, Shape::Uleb);
  set(0xf7, "DW_OP_GNU_convert", Shape::Uleb);
  set(0xf9, "DW_OP_GNU_reinterpret", Shape::Uleb);
  set(0xfa, "DW_OP_GNU_parameter_ref", Shape::U32);
  set(0xfb, "DW_OP_GNU_addr_index", Shape::Uleb);
  set(0xfc, "DW_OP_GNU_const_index", Shape::Uleb);
  set(0xfd, "DW_OP_GNU_variable_value", Shape::Reference);
  return t;
}

constexpr std::array<OpInfo, 256> kOps = make_table();

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
