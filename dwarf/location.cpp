// DWARF location expressions to Places: a small symbolic evaluator that keeps
// each stack entry as "fetch expression + addend" so that what it computes
// can be written as kernel fetch-args. Anything that needs arithmetic the
// kernel cannot do is refused with the operation that caused it.
#include <algorithm>
#include <bit>
#include <cstdio>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFExpression.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

struct StackEntry {
  enum class Kind { Expr, Address, Constant };
  Kind kind = Kind::Expr;
  FetchExpr expr;        // Kind::Expr
  uint64_t value = 0;    // Address (link-time), Constant
  int64_t addend = 0;    // Expr: value = bits of expr (see FetchExpr) + addend
  unsigned pending_shl = 0;  // Expr: a DW_OP_shl waiting for the shift back that makes it a mask
};

StackEntry constant(uint64_t v) { return {StackEntry::Kind::Constant, {}, v, 0}; }
StackEntry reg_plus(int reg, int64_t offset) {
  StackEntry e;
  e.expr.root = FetchExpr::Root::Register;
  e.expr.dwarf_reg = reg;
  e.addend = offset;
  return e;
}

std::string op_name(uint8_t op) {
  StringRef name = llvm::dwarf::OperationEncodingString(op);
  if (!name.empty()) return name.str();
  char buf[16];
  std::snprintf(buf, sizeof buf, "DW_OP_0x%02x", op);
  return buf;
}

Error unsupported(uint8_t op, const std::string &why = "not supported yet") {
  return Error(op_name(op) + " " + why);
}

uint64_t low_bits(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }

// DW_OP_shl/shr/shra/and by the constant `k` on a run-time value: what the
// kernel's bitfield fetch can do, taking a run of bits (a member packed into
// a register, a 32-bit value in a 64-bit register). "x << k >> k" keeps the
// low 64 - k bits; the variable's type then says whether they are signed.
Status take_bits(StackEntry &e, uint8_t op, uint64_t k) {
  FetchExpr &x = e.expr;
  if (!x.terms.empty()) {
    // A sum of run-time values, which only the decoder has: it can keep the
    // sum's low bits, signed or not, as it does for the variable's type.
    if (op == llvm::dwarf::DW_OP_shl && !e.pending_shl && k > 0 && k < 64) {
      e.pending_shl = static_cast<unsigned>(k);
      return Ok{};
    }
    if ((op == llvm::dwarf::DW_OP_shr || op == llvm::dwarf::DW_OP_shra) && e.pending_shl == k) {
      e.pending_shl = 0;
      x.sum_bits = std::min(x.sum_bits, 64 - static_cast<unsigned>(k));
      x.sum_signed = op == llvm::dwarf::DW_OP_shra;
      return Ok{};
    }
    if (op == llvm::dwarf::DW_OP_and && !e.pending_shl && k != 0 && (k & (k + 1)) == 0) {
      x.sum_bits = std::min(x.sum_bits, static_cast<unsigned>(std::popcount(k)));
      x.sum_signed = false;
      return Ok{};
    }
    return unsupported(op, "of a sum of run-time values cannot be done here");
  }
  if (e.addend != 0) return unsupported(op, "of a computed sum cannot be done by kernel fetch-args");
  if (op == llvm::dwarf::DW_OP_shl) {
    if (e.pending_shl || k == 0 || k >= 64) return unsupported(op, "cannot be done by kernel fetch-args here");
    e.pending_shl = static_cast<unsigned>(k);
    return Ok{};
  }
  if (op == llvm::dwarf::DW_OP_and) {
    if (e.pending_shl || k == 0 || (k & (k + 1)) != 0)
      return unsupported(op, "with a mask other than low bits cannot be done by kernel fetch-args");
    x.bit_width = std::min(x.bit_width, static_cast<unsigned>(std::popcount(k)));
    return Ok{};
  }
  // DW_OP_shr, DW_OP_shra
  if (k >= 64) return unsupported(op, "by 64 or more is not supported");
  if (e.pending_shl) {
    if (k != e.pending_shl) return unsupported(llvm::dwarf::DW_OP_shl, "by a different amount than the shift back cannot be done by kernel fetch-args");
    x.bit_width = std::min(x.bit_width, 64 - static_cast<unsigned>(k));
    e.pending_shl = 0;
    return Ok{};
  }
  if (k >= x.bit_width) return unsupported(op, "leaves no bits");
  x.bit_offset += static_cast<unsigned>(k);
  x.bit_width -= static_cast<unsigned>(k);
  return Ok{};
}

uint64_t fold_constant(uint8_t op, uint64_t v, uint64_t k) {
  switch (op) {
    case llvm::dwarf::DW_OP_shl: return k >= 64 ? 0 : v << k;
    case llvm::dwarf::DW_OP_shr: return k >= 64 ? 0 : v >> k;
    case llvm::dwarf::DW_OP_shra: return static_cast<uint64_t>(static_cast<int64_t>(v) >> std::min<uint64_t>(k, 63));
    default: return v & k;  // DW_OP_and
  }
}

}  // namespace

// The rule comes from the one FDE that covers pc (dwarf/cfa.cpp), not from
// a parse of the whole section.
Result<FetchExpr> LlvmDebugInfo::frame_address(uint64_t pc, int64_t &addend) {
  auto rule = cfa_at(pc);
  if (!rule) return std::move(rule).error();
  FetchExpr e;
  e.root = FetchExpr::Root::Register;
  e.dwarf_reg = rule->reg;
  addend = rule->offset;
  return e;
}

Result<Place> LlvmDebugInfo::locate(DWARFDie die, DWARFDie function, uint64_t pc, uint64_t block_entry) {
  if (auto value = die.find(llvm::dwarf::DW_AT_const_value)) {
    if (auto s = value->getAsSignedConstant()) return Place::known(*s);
    if (auto u = value->getAsUnsignedConstant()) return Place::known(static_cast<int64_t>(*u));
    // A constant char array ("from-a"): its bytes, up to the first NUL.
    if (auto block = value->getAsBlock()) {
      std::string text(block->begin(), block->end());
      return Place::known_text(text.substr(0, text.find('\0')));
    }
    if (auto str = value->getAsCString()) return Place::known_text(*str);
    else consumeError(str.takeError());
    return Error("its value is a constant block we cannot pass to the kernel");
  }
  if (!die.find(llvm::dwarf::DW_AT_location)) return Error("it has no location (optimized out)");
  auto locations = die.getLocations(llvm::dwarf::DW_AT_location);
  if (!locations) {
    std::string why = toString(locations.takeError());
    return Error("its location list cannot be read: " + why);
  }
  const DWARFLocationExpression *chosen = nullptr;
  for (const DWARFLocationExpression &loc : *locations) {
    if (!loc.Range) {
      if (!chosen) chosen = &loc;
    } else if ((pc >= loc.Range->LowPC && pc < loc.Range->HighPC) ||
               (pc == loc.Range->LowPC && pc == loc.Range->HighPC && pc == block_entry)) {
      // An empty range is a location view (gcc's DW_AT_GNU_locviews). At
      // the entry of the function (or inlined copy) that declares the
      // variable, the first view is where a probe there stands: it holds.
      // Elsewhere it describes a moment between two instructions, which no
      // probe sees. gdb reads them the same way.
      chosen = &loc;
      break;
    }
  }
  if (!chosen) return Error("no location covers this address (optimized out here)");
  if (chosen->Expr.empty()) return Error("its location is empty here (optimized out)");

  DWARFUnit *unit = die.getDwarfUnit();
  uint8_t address_size = unit->getAddressByteSize();
  DataExtractor data(toStringRef(chosen->Expr), dwarf().isLittleEndian(), address_size);
  DWARFExpression expression(data, address_size, unit->getFormParams().Format);

  std::vector<StackEntry> stack;
  std::optional<int> register_location;
  bool stack_value = false;
  std::optional<Place> implicit;
  std::vector<Piece> pieces;
  uint64_t skip_until = 0;
  // The location the operations so far describe; reset after each piece.
  auto finish = [&]() -> Result<Place> {
    if (implicit) return *implicit;
    if (register_location) return Place::in_register(*register_location);
    if (stack.empty()) return Error("its location expression is empty");
    const StackEntry &top = stack.back();
    if (top.pending_shl) return unsupported(llvm::dwarf::DW_OP_shl, "cannot be done by kernel fetch-args here");
    if (stack_value && top.kind == StackEntry::Kind::Expr && (top.addend != 0 || top.expr.decoder_computed())) {
      // A computed value: the kernel fetches the bits, our decoder adds.
      FetchExpr v = top.expr;
      v.post_add += top.addend;
      return Place::value(v);
    }
    if (top.kind == StackEntry::Kind::Expr && top.expr.decoder_computed())
      return Error("its address is computed from registers' bits or from several run-time values, which kernel "
                   "fetch-args cannot load through");
    if (stack_value) {
      if (top.kind == StackEntry::Kind::Constant) return Place::known(static_cast<int64_t>(top.value) + top.addend);
      if (top.kind == StackEntry::Kind::Address) {
        FetchExpr address;
        address.root = FetchExpr::Root::GlobalAddress;
        address.address = top.value + static_cast<uint64_t>(top.addend);
        return Place::value(address);
      }
      if (top.expr.root == FetchExpr::Root::Register && top.expr.loads.empty())
        return Place::in_register(top.expr.dwarf_reg);
      if (top.expr.root == FetchExpr::Root::EntryRegister && top.expr.loads.empty())
        return Place::value(top.expr);
      if (top.expr.root == FetchExpr::Root::GlobalMemory && top.expr.loads.empty())
        return Place::at_address(top.expr.address);
      FetchExpr base = top.expr;
      int64_t last = base.loads.back();
      base.loads.pop_back();
      return Place::at(base, last);
    }
    if (top.kind == StackEntry::Kind::Expr) return Place::at(top.expr, top.addend);
    return Place::at_address(top.value + static_cast<uint64_t>(top.addend));
  };
  for (const DWARFExpression::Operation &op : expression) {
    uint8_t code = op.getCode();
    if (op.isError()) return Error("its location expression is malformed");
    if (op.getEndOffset() <= skip_until) continue;  // inside an entry value's block, read already
    if (register_location && code != llvm::dwarf::DW_OP_piece) return unsupported(code, "after a register location");
    if (code >= llvm::dwarf::DW_OP_lit0 && code <= llvm::dwarf::DW_OP_lit31) {
      stack.push_back(constant(code - llvm::dwarf::DW_OP_lit0));
    } else if (code >= llvm::dwarf::DW_OP_reg0 && code <= llvm::dwarf::DW_OP_reg31) {
      register_location = code - llvm::dwarf::DW_OP_reg0;
    } else if (code == llvm::dwarf::DW_OP_regx) {
      register_location = static_cast<int>(op.getRawOperand(0));
    } else if (code >= llvm::dwarf::DW_OP_breg0 && code <= llvm::dwarf::DW_OP_breg31) {
      stack.push_back(reg_plus(code - llvm::dwarf::DW_OP_breg0, static_cast<int64_t>(op.getRawOperand(0))));
    } else if (code == llvm::dwarf::DW_OP_bregx) {
      stack.push_back(reg_plus(static_cast<int>(op.getRawOperand(0)), static_cast<int64_t>(op.getRawOperand(1))));
    } else if (code == llvm::dwarf::DW_OP_fbreg || code == llvm::dwarf::DW_OP_call_frame_cfa) {
      StackEntry base;
      if (code == llvm::dwarf::DW_OP_call_frame_cfa) {
        int64_t addend = 0;
        auto cfa = frame_address(pc, addend);
        if (!cfa) return std::move(cfa).error();
        base.expr = *cfa;
        base.addend = addend;
      } else {
        auto frame_base = function.find(llvm::dwarf::DW_AT_frame_base);
        auto block = frame_base ? frame_base->getAsBlock() : std::nullopt;
        if (!block) return Error("its function has no usable frame base");
        // The frame base is itself a location expression, evaluated as a value.
        DataExtractor fb_data(toStringRef(*block), dwarf().isLittleEndian(), address_size);
        DWARFExpression fb(fb_data, address_size, unit->getFormParams().Format);
        auto first = fb.begin();
        if (first == fb.end()) return Error("its function's frame base is empty");
        uint8_t fb_code = first->getCode();
        if (fb_code == llvm::dwarf::DW_OP_call_frame_cfa) {
          int64_t addend = 0;
          auto cfa = frame_address(pc, addend);
          if (!cfa) return std::move(cfa).error();
          base.expr = *cfa;
          base.addend = addend;
        } else if (fb_code >= llvm::dwarf::DW_OP_reg0 && fb_code <= llvm::dwarf::DW_OP_reg31) {
          base = reg_plus(fb_code - llvm::dwarf::DW_OP_reg0, 0);
        } else if (fb_code >= llvm::dwarf::DW_OP_breg0 && fb_code <= llvm::dwarf::DW_OP_breg31) {
          base = reg_plus(fb_code - llvm::dwarf::DW_OP_breg0, static_cast<int64_t>(first->getRawOperand(0)));
        } else {
          return unsupported(fb_code, "as a frame base is not supported yet");
        }
        base.addend += static_cast<int64_t>(op.getRawOperand(0));
      }
      stack.push_back(base);
    } else if (code == llvm::dwarf::DW_OP_addr) {
      stack.push_back({StackEntry::Kind::Address, {}, op.getRawOperand(0), 0});
    } else if (code == llvm::dwarf::DW_OP_addrx || code == llvm::dwarf::DW_OP_GNU_addr_index) {
      auto address = unit->getAddrOffsetSectionItem(static_cast<uint32_t>(op.getRawOperand(0)));
      if (!address) return Error("its address index is out of range");
      stack.push_back({StackEntry::Kind::Address, {}, address->Address, 0});
    } else if (code == llvm::dwarf::DW_OP_const1u || code == llvm::dwarf::DW_OP_const2u || code == llvm::dwarf::DW_OP_const4u ||
               code == llvm::dwarf::DW_OP_const8u || code == llvm::dwarf::DW_OP_constu || code == llvm::dwarf::DW_OP_const1s ||
               code == llvm::dwarf::DW_OP_const2s || code == llvm::dwarf::DW_OP_const4s || code == llvm::dwarf::DW_OP_const8s ||
               code == llvm::dwarf::DW_OP_consts) {
      stack.push_back(constant(op.getRawOperand(0)));
    } else if (code == llvm::dwarf::DW_OP_plus_uconst) {
      if (stack.empty()) return Error("its location expression is malformed");
      stack.back().addend += static_cast<int64_t>(op.getRawOperand(0));
    } else if (code == llvm::dwarf::DW_OP_plus || code == llvm::dwarf::DW_OP_minus) {
      if (stack.size() < 2) return Error("its location expression is malformed");
      StackEntry rhs = stack.back();
      stack.pop_back();
      StackEntry &lhs = stack.back();
      if (rhs.kind == StackEntry::Kind::Constant) {
        int64_t v = static_cast<int64_t>(rhs.value) + rhs.addend;
        lhs.addend += code == llvm::dwarf::DW_OP_plus ? v : -v;
      } else if (code == llvm::dwarf::DW_OP_plus && lhs.kind == StackEntry::Kind::Constant) {
        int64_t v = static_cast<int64_t>(lhs.value) + lhs.addend;
        lhs = rhs;
        lhs.addend += v;
      } else if (lhs.kind == StackEntry::Kind::Expr && rhs.kind == StackEntry::Kind::Expr && !lhs.pending_shl &&
                 !rhs.pending_shl && rhs.expr.terms.empty() && rhs.expr.root != FetchExpr::Root::EntryRegister) {
        // Two run-time values: each becomes a field, the decoder adds them.
        bool minus = code == llvm::dwarf::DW_OP_minus;
        FetchExpr term = rhs.expr;
        term.negated = minus;
        lhs.addend += minus ? -rhs.addend : rhs.addend;
        lhs.expr.terms.push_back(std::move(term));
      } else {
        return unsupported(code, "of two run-time values cannot be done by kernel fetch-args");
      }
    } else if (code == llvm::dwarf::DW_OP_deref || code == llvm::dwarf::DW_OP_deref_size) {
      // DW_OP_deref_size N loads N bytes, zero-extended. As the last load,
      // the variable's type already reads that many bytes. On the way to a
      // computation it is the load's low N * 8 bits (a bitfield fetch); a
      // narrower pointer loaded through would need a mask the kernel cannot
      // apply, which the load after it refuses.
      unsigned narrow_bits = 0;
      if (code == llvm::dwarf::DW_OP_deref_size && op.getRawOperand(0) < 8) {
        bool last = op.getEndOffset() == data.getData().size() ||
                    static_cast<uint8_t>(data.getData()[op.getEndOffset()]) == llvm::dwarf::DW_OP_stack_value;
        if (last && op.getRawOperand(0) < describe(type_of(die)).size)
          return unsupported(code, "narrower than the value it loads is not supported");
        if (!last) narrow_bits = static_cast<unsigned>(op.getRawOperand(0) * 8);
      }
      if (stack.empty()) return Error("its location expression is malformed");
      StackEntry &top = stack.back();
      if (top.kind == StackEntry::Kind::Expr && (top.expr.decoder_computed() || top.pending_shl))
        return unsupported(code, "through a computed value cannot be done by kernel fetch-args");
      if (top.kind == StackEntry::Kind::Expr) {
        top.expr.loads.push_back(top.addend);
      } else {
        FetchExpr global;
        global.root = FetchExpr::Root::GlobalMemory;
        global.address = top.value + static_cast<uint64_t>(top.addend);
        top.expr = global;
        top.kind = StackEntry::Kind::Expr;
      }
      top.addend = 0;
      if (narrow_bits) top.expr.bit_width = narrow_bits;
    } else if (code == llvm::dwarf::DW_OP_shl || code == llvm::dwarf::DW_OP_shr || code == llvm::dwarf::DW_OP_shra ||
               code == llvm::dwarf::DW_OP_and) {
      if (stack.size() < 2) return Error("its location expression is malformed");
      StackEntry rhs = stack.back();
      stack.pop_back();
      StackEntry &lhs = stack.back();
      if (rhs.kind != StackEntry::Kind::Constant)
        return unsupported(code, "of two run-time values cannot be done by kernel fetch-args");
      uint64_t k = rhs.value + static_cast<uint64_t>(rhs.addend);
      if (lhs.kind == StackEntry::Kind::Constant) {
        lhs.value = fold_constant(code, lhs.value + static_cast<uint64_t>(lhs.addend), k);
        lhs.addend = 0;
      } else if (lhs.kind == StackEntry::Kind::Address) {
        return unsupported(code, "of an address is not supported");
      } else if (auto taken = take_bits(lhs, code, k); !taken) {
        return std::move(taken).error();
      }
    } else if (code == llvm::dwarf::DW_OP_convert || code == 0xf7 /* DW_OP_GNU_convert */) {
      // To a base type of N bytes: the low N * 8 bits. 0 is the generic type.
      if (stack.empty()) return Error("its location expression is malformed");
      uint64_t type_offset = op.getRawOperand(0);
      unsigned bits = 64;
      if (type_offset != 0) {
        DWARFDie base = unit->getDIEForOffset(unit->getOffset() + type_offset);
        auto size = base ? base.find(llvm::dwarf::DW_AT_byte_size) : std::nullopt;
        auto bytes = size ? size->getAsUnsignedConstant() : std::nullopt;
        if (!bytes) return unsupported(code, "to a type we cannot read");
        bits = static_cast<unsigned>(std::min<uint64_t>(*bytes * 8, 64));
      }
      StackEntry &top = stack.back();
      if (top.kind == StackEntry::Kind::Constant) {
        top.value = low_bits(top.value + static_cast<uint64_t>(top.addend), bits);
        top.addend = 0;
      } else if (top.kind == StackEntry::Kind::Expr && top.addend == 0 && !top.pending_shl) {
        top.expr.bit_width = std::min(top.expr.bit_width, bits);
      }
      // A sum converted keeps its low bits when the variable's type (no wider
      // than the conversion) is applied to it; nothing to do here.
    } else if (code == llvm::dwarf::DW_OP_stack_value) {
      stack_value = true;
    } else if (code == llvm::dwarf::DW_OP_implicit_value) {
      uint64_t size = op.getRawOperand(0);
      if (size > 8) return unsupported(code, "larger than 8 bytes");
      uint64_t value = 0;
      StringRef bytes = data.getData().substr(op.getOperandEndOffset(0), size);
      for (size_t i = 0; i < bytes.size(); ++i)
        value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
      implicit = Place::known(static_cast<int64_t>(value));
    } else if (code == llvm::dwarf::DW_OP_piece) {
      // A variable split into pieces (a struct in two registers, say): each
      // piece is kept, and a member is later read from the piece holding it.
      Piece piece;
      piece.size = op.getRawOperand(0);
      bool empty = !implicit && !register_location && stack.empty();  // the compiler dropped these bytes
      if (!empty) {
        auto place = finish();
        if (!place) return std::move(place).error();
        piece.place.push_back(std::move(*place));
      }
      pieces.push_back(std::move(piece));
      stack.clear();
      register_location.reset();
      implicit.reset();
      stack_value = false;
    } else if (code == llvm::dwarf::DW_OP_entry_value || code == llvm::dwarf::DW_OP_GNU_entry_value) {
      // The value a register had when the function was entered. At the
      // entry itself that is the register now; elsewhere a companion probe
      // at the entry reads it, and the event stream joins the two per thread.
      // LLVM stops the operation after the block's size and yields the
      // block's operations as the next ones; they are skipped below.
      uint64_t size = op.getRawOperand(0);
      StringRef block = data.getData().substr(op.getEndOffset(), size);
      skip_until = op.getEndOffset() + size;
      std::optional<int> reg;
      if (size == 1 && static_cast<uint8_t>(block[0]) >= llvm::dwarf::DW_OP_reg0 &&
          static_cast<uint8_t>(block[0]) <= llvm::dwarf::DW_OP_reg31)
        reg = static_cast<uint8_t>(block[0]) - llvm::dwarf::DW_OP_reg0;
      uint64_t entry = 0, high = 0, section = 0;
      bool at_entry = function.getLowAndHighPC(entry, high, section) && pc == entry;
      if (!reg) return unsupported(code, "of something other than a register is not supported yet");
      StackEntry e = reg_plus(*reg, 0);
      if (!at_entry) e.expr.root = FetchExpr::Root::EntryRegister;  // a companion probe at the entry reads it
      stack.push_back(e);
    } else {
      return unsupported(code);
    }
  }

  if (!pieces.empty()) {
    Place split;
    split.kind = Place::Kind::Pieces;
    split.pieces = std::move(pieces);
    return split;
  }
  return finish();
}

std::vector<AddressRange> LlvmDebugInfo::available_ranges(DWARFDie die, DWARFDie scope) {
  std::vector<AddressRange> scope_ranges;
  if (auto ranges = scope.getAddressRanges()) {
    for (const auto &r : *ranges) scope_ranges.push_back({r.LowPC, r.HighPC});
  } else {
    consumeError(ranges.takeError());
  }
  auto loc = die.find(llvm::dwarf::DW_AT_location);
  if (die.find(llvm::dwarf::DW_AT_const_value) ||
      (loc && (loc->isFormClass(DWARFFormValue::FC_Exprloc) || loc->isFormClass(DWARFFormValue::FC_Block))))
    return scope_ranges;
  std::vector<AddressRange> out;
  if (!loc) return out;
  auto locations = die.getLocations(llvm::dwarf::DW_AT_location);
  if (!locations) {
    consumeError(locations.takeError());
    return out;
  }
  for (const DWARFLocationExpression &entry : *locations) {
    if (entry.Expr.empty()) continue;
    if (!entry.Range) return scope_ranges;
    for (const AddressRange &s : scope_ranges) {
      uint64_t b = std::max(s.begin, entry.Range->LowPC), e = std::min(s.end, entry.Range->HighPC);
      if (b < e) out.push_back({b, e});
    }
  }
  return out;
}

}  // namespace kpp::dwarf
