// The symbolic evaluator (see expression.h). Stack entries are constants,
// link-time addresses, kernel-fetchable values ("register + addend", loads,
// a run of bits) or computed values: a tree of operations over fetchable
// leaves that becomes the decoder's program (linearize()).
#include "dwarf/expr/expression.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <optional>

#include "dwarf/expr/expression_ops.h"

namespace kpp::dwarf {

namespace {

struct Tree;
using TreeRef = std::shared_ptr<const Tree>;

// A value the decoder computes.
struct Tree {
  enum class Kind { Leaf, Constant, Op, Select, Load };
  Kind kind = Kind::Constant;
  FetchExpr leaf;                // Leaf: what the kernel fetches
  uint64_t number = 0;           // Constant; Load: bytes
  std::vector<TreeRef> args;     // Op: operands, pushed in order; Select: condition, then, else; Load: address
  std::vector<ValueStep> steps;  // Op: applied to the operands
};

TreeRef make_constant(uint64_t v) {
  auto t = std::make_shared<Tree>();
  t->number = v;
  return t;
}
TreeRef make_leaf(FetchExpr e) {
  auto t = std::make_shared<Tree>();
  t->kind = Tree::Kind::Leaf;
  t->leaf = std::move(e);
  return t;
}
TreeRef make_op(std::vector<TreeRef> args, std::vector<ValueStep> steps) {
  auto t = std::make_shared<Tree>();
  t->kind = Tree::Kind::Op;
  t->args = std::move(args);
  t->steps = std::move(steps);
  return t;
}

// One entry of the evaluation stack.
struct Value {
  enum class Kind { Constant, Address, Fetch, Computed };
  Kind kind = Kind::Constant;
  uint64_t number = 0;       // Constant; Address: link-time
  FetchExpr fetch;           // Fetch
  int64_t addend = 0;        // Fetch, Address: added to it
  unsigned pending_shl = 0;  // Fetch: a DW_OP_shl waiting for the shift back that makes it a run of bits
  TreeRef tree;              // Computed
};

Value constant(uint64_t v) {
  Value c;
  c.number = v;
  return c;
}
Value address(uint64_t link_time) {
  Value a;
  a.kind = Value::Kind::Address;
  a.number = link_time;
  return a;
}
Value register_plus(int reg, int64_t offset) {
  Value v;
  v.kind = Value::Kind::Fetch;
  v.fetch.root = FetchExpr::Root::Register;
  v.fetch.dwarf_reg = reg;
  v.addend = offset;
  return v;
}
Value computed(TreeRef t) {
  Value v;
  v.kind = Value::Kind::Computed;
  v.tree = std::move(t);
  return v;
}

Error refused(uint8_t code, const std::string &why) { return Error(operation_name(code) + " " + why); }
Error malformed() { return Error("its location expression is malformed"); }

uint64_t low_bits(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }

// The decoder's step for a DWARF operation on two (or one) values.
std::optional<ValueOp> value_op(uint8_t code) {
  switch (code) {
    case 0x1a: return ValueOp::And;
    case 0x1b: return ValueOp::Div;
    case 0x1c: return ValueOp::Sub;
    case 0x1d: return ValueOp::Mod;
    case 0x1e: return ValueOp::Mul;
    case 0x21: return ValueOp::Or;
    case 0x22: return ValueOp::Add;
    case 0x24: return ValueOp::Shl;
    case 0x25: return ValueOp::Shr;
    case 0x26: return ValueOp::Shra;
    case 0x27: return ValueOp::Xor;
    case 0x29: return ValueOp::Eq;
    case 0x2a: return ValueOp::Ge;
    case 0x2b: return ValueOp::Gt;
    case 0x2c: return ValueOp::Le;
    case 0x2d: return ValueOp::Lt;
    case 0x2e: return ValueOp::Ne;
    case 0x19: return ValueOp::Abs;
    case 0x1f: return ValueOp::Neg;
    case 0x20: return ValueOp::Not;
    default: return std::nullopt;
  }
}

// Folds `steps` over constants with the decoder's own arithmetic, so that
// what is folded here and what the decoder computes agree.
std::optional<uint64_t> fold(std::vector<uint64_t> operands, const std::vector<ValueStep> &steps) {
  std::vector<ValueStep> program;
  for (size_t i = 1; i < operands.size(); ++i) program.push_back({ValueOp::PushConst, operands[i]});
  program.insert(program.end(), steps.begin(), steps.end());
  ProgramLeaf leaf{operands[0], {}};
  return run_value_program(program, std::span<const ProgramLeaf>(&leaf, 1)).value;
}

// Evaluation state: one path through the expression.
struct State {
  size_t pc = 0;
  std::vector<Value> stack;
  std::optional<int> register_location;
  bool stack_value = false;
  std::optional<Place> implicit;
  std::vector<Piece> pieces;
};

constexpr size_t kMaxSteps = 4096;      // operations run, over all paths (DW_OP_skip can loop)
constexpr unsigned kMaxForks = 6;       // DW_OP_bra over run-time values, nested
constexpr size_t kMaxStack = 64;
constexpr uint64_t kMaxWindow = 512;    // bytes of stack frame fetched for a computed address

class Evaluator {
 public:
  Evaluator(std::span<const uint8_t> bytes, const ExpressionFormat &format, ExpressionContext &context,
            uint64_t value_bytes)
      : bytes_(bytes), format_(format), context_(context), value_bytes_(value_bytes) {}

  Result<Place> evaluate() {
    auto end = run(State{}, 0);
    if (!end) return std::move(end).error();
    if (!end->pieces.empty()) {
      if (!end->stack.empty() || end->register_location || end->implicit)
        return Error("its location expression has operations after its last piece");
      Place split;
      split.kind = Place::Kind::Pieces;
      split.pieces = std::move(end->pieces);
      return split;
    }
    return finish(*end);
  }

 private:
  // Runs `s` to the end of the expression.
  Result<State> run(State s, unsigned forks) {
    while (s.pc < bytes_.size()) {
      if (++steps_ > kMaxSteps) return Error("its location expression runs too long (a loop?)");
      auto op = read_operation(bytes_, s.pc, format_);
      if (!op) {
        uint8_t code = bytes_[s.pc];
        if (code == 0xf1) return refused(code, "is not supported");
        if (operation_name(code).find("0x") != std::string::npos)
          return Error("its location expression has an unknown operation " + operation_name(code));
        return malformed();
      }
      s.pc = op->end;
      if (s.register_location && op->code != 0x93 && op->code != 0x9d && op->code != 0x96 && op->code != 0xf0)
        return refused(op->code, "after a register location");
      if (op->code == 0x28) {  // DW_OP_bra
        if (s.stack.empty()) return malformed();
        Value cond = std::move(s.stack.back());
        s.stack.pop_back();
        auto target = jump(*op);
        if (!target) return malformed();
        if (cond.kind == Value::Kind::Constant) {
          if (cond.number != 0) s.pc = *target;
          continue;
        }
        return fork(std::move(s), std::move(cond), *target, forks);
      }
      if (op->code == 0x2f) {  // DW_OP_skip
        auto target = jump(*op);
        if (!target) return malformed();
        s.pc = *target;
        continue;
      }
      if (auto done = step(s, *op); !done) return std::move(done).error();
      if (s.stack.size() > kMaxStack) return Error("its location expression's stack grows past " + std::to_string(kMaxStack));
    }
    return s;
  }

  std::optional<size_t> jump(const Operation &op) const {
    int64_t target = static_cast<int64_t>(op.end) + static_cast<int64_t>(op.operand[0]);
    if (target < 0 || static_cast<uint64_t>(target) > bytes_.size()) return std::nullopt;
    return static_cast<size_t>(target);
  }

  // DW_OP_bra on a run-time value: both ways, then the value is chosen by
  // the condition (by the decoder) when both end in the same kind of place.
  Result<State> fork(State s, Value cond, size_t target, unsigned forks) {
    if (forks >= kMaxForks) return refused(0x28, "over run-time values nests too deep");
    State taken = s;
    taken.pc = target;
    auto a = run(std::move(taken), forks + 1);
    if (!a) return std::move(a).error();
    auto b = run(std::move(s), forks + 1);
    if (!b) return std::move(b).error();
    bool same_kind = a->pieces.empty() && b->pieces.empty() && !a->register_location && !b->register_location &&
                     !a->implicit && !b->implicit && a->stack_value == b->stack_value && !a->stack.empty() &&
                     !b->stack.empty();
    if (!same_kind) return refused(0x28, "over run-time values to locations of different kinds is not supported");
    auto select = std::make_shared<Tree>();
    select->kind = Tree::Kind::Select;
    auto c = tree_of(cond), then = tree_of(a->stack.back()), otherwise = tree_of(b->stack.back());
    if (!c || !then || !otherwise) return Error("its location expression branches on a value kernel fetch-args cannot give");
    select->args = {*c, *then, *otherwise};
    b->stack.back() = computed(select);
    return b;
  }

  // A value as a tree of the decoder's operations over fetched leaves.
  std::optional<TreeRef> tree_of(const Value &v) {
    switch (v.kind) {
      case Value::Kind::Constant: return make_constant(v.number);
      case Value::Kind::Computed: return v.tree;
      case Value::Kind::Address: {
        // Arithmetic on a global's run-time address would need the PIE's
        // load address inside the program: not done.
        return std::nullopt;
      }
      case Value::Kind::Fetch: {
        if (v.fetch.root == FetchExpr::Root::EntryRegister || v.fetch.root == FetchExpr::Root::GlobalAddress) {
          // An entry value is read by a companion probe; it can only be the
          // value's one leaf (see typed_fetch), checked when the program is built.
        }
        TreeRef t = make_leaf(v.fetch);
        if (v.pending_shl) t = make_op({t, make_constant(v.pending_shl)}, {{ValueOp::Shl}});
        if (v.addend) t = make_op({t}, {{ValueOp::AddConst, static_cast<uint64_t>(v.addend)}});
        return t;
      }
    }
    return std::nullopt;
  }

  Status push_computed(State &s, std::vector<Value> operands, std::vector<ValueStep> steps, uint8_t code) {
    std::vector<TreeRef> args;
    for (const Value &v : operands) {
      auto t = tree_of(v);
      if (!t) return refused(code, "of a global's address and a run-time value is not supported");
      args.push_back(*t);
    }
    s.stack.push_back(computed(make_op(std::move(args), std::move(steps))));
    return Ok{};
  }

  // One operation, by the kind of job it does (DWARF 5 section 2.5.1 and 2.6.1).
  Status step(State &s, const Operation &op) {
    if (auto done = push_value(s, op)) return std::move(*done);
    if (auto done = move_stack(s, op)) return std::move(*done);
    if (auto done = compute(s, op)) return std::move(*done);
    if (auto done = load_or_convert(s, op)) return std::move(*done);
    if (auto done = describe_location(s, op)) return std::move(*done);
    return unsupported(op.code);
  }

  static bool has(const State &s, size_t n) { return s.stack.size() >= n; }

  // Literals, addresses and register values pushed on the stack; nullopt
  // when `op` is not one of them.
  std::optional<Status> push_value(State &s, const Operation &op) {
    uint8_t code = op.code;
    if (code >= 0x30 && code <= 0x4f) {
      s.stack.push_back(constant(code - 0x30u));
    } else if (code >= 0x70 && code <= 0x8f) {
      s.stack.push_back(register_plus(code - 0x70, static_cast<int64_t>(op.operand[0])));
    } else if (code == 0x92) {
      s.stack.push_back(register_plus(static_cast<int>(op.operand[0]), static_cast<int64_t>(op.operand[1])));
    } else if (code == 0x91) {  // DW_OP_fbreg
      auto base = frame_base();
      if (!base) return std::move(base).error();
      base->addend += static_cast<int64_t>(op.operand[0]);
      s.stack.push_back(std::move(*base));
    } else if (code == 0x9c) {  // DW_OP_call_frame_cfa
      auto cfa = context_.call_frame_cfa();
      if (!cfa) return std::move(cfa).error();
      s.stack.push_back(register_plus(cfa->reg, cfa->offset));
    } else if (code == 0x03) {
      s.stack.push_back(address(op.operand[0]));
    } else if (code == 0xa1 || code == 0xfb || code == 0xa2 || code == 0xfc) {  // addrx, constx
      auto index = context_.indexed_address(op.operand[0]);
      if (!index) return std::move(index).error();
      // DW_OP_constx is a relocated constant (a TLS offset): a number.
      bool is_address = code == 0xa1 || code == 0xfb;
      s.stack.push_back(is_address ? address(*index) : constant(*index));
    } else if ((code >= 0x08 && code <= 0x11)) {
      s.stack.push_back(constant(op.operand[0]));
    } else if (code == 0xa4 || code == 0xf4) {  // DW_OP_const_type
      if (op.block.size() > 8) return refused(code, "wider than 8 bytes is not supported");
      s.stack.push_back(constant(block_value(op.block)));
      return convert(s, op.operand[0], code);
    } else if (code == 0xa5 || code == 0xf5) {  // DW_OP_regval_type
      s.stack.push_back(register_plus(static_cast<int>(op.operand[0]), 0));
      return convert(s, op.operand[1], code);
    } else if (code == 0xa3 || code == 0xf3) {  // DW_OP_entry_value
      return entry_value(s, op);
    } else {
      return std::nullopt;
    }
    return Ok{};
  }

  // dup, drop, over, pick, swap, rot: they move descriptions, whatever they
  // describe.
  std::optional<Status> move_stack(State &s, const Operation &op) {
    uint8_t code = op.code;
    if (code < 0x12 || code > 0x17) return std::nullopt;
    size_t depth = code == 0x15 ? static_cast<size_t>(op.operand[0]) : code == 0x14 ? 1 : 0;
    size_t needed = code == 0x17 ? 3 : code == 0x16 ? 2 : depth + 1;
    if (!has(s, needed)) return malformed();
    auto &st = s.stack;
    if (code == 0x12 || code == 0x14 || code == 0x15) st.push_back(st[st.size() - 1 - depth]);
    else if (code == 0x13) st.pop_back();
    else if (code == 0x16) std::swap(st[st.size() - 1], st[st.size() - 2]);
    else std::rotate(st.end() - 3, st.end() - 1, st.end());  // the top becomes the third
    return Ok{};
  }

  // The arithmetic and logical operations and the comparisons.
  std::optional<Status> compute(State &s, const Operation &op) {
    uint8_t code = op.code;
    if (code == 0x23) {  // DW_OP_plus_uconst
      if (!has(s, 1)) return malformed();
      return add_constant(s, static_cast<int64_t>(op.operand[0]), code);
    }
    if (code == 0x19 || code == 0x1f || code == 0x20) {  // abs, neg, not
      if (!has(s, 1)) return malformed();
      Value v = std::move(s.stack.back());
      s.stack.pop_back();
      std::vector<ValueStep> steps{{*value_op(code)}};
      if (v.kind == Value::Kind::Constant) {
        s.stack.push_back(constant(*fold({v.number}, steps)));
        return Ok{};
      }
      return push_computed(s, {std::move(v)}, std::move(steps), code);
    }
    if (auto binary = value_op(code)) {
      if (!has(s, 2)) return malformed();
      return binary_op(s, code, *binary);
    }
    return std::nullopt;
  }

  // Loads through the top of the stack and changes of its type.
  std::optional<Status> load_or_convert(State &s, const Operation &op) {
    uint8_t code = op.code;
    if (code == 0x06 || code == 0x94 || code == 0xa6 || code == 0xf6) {  // deref, deref_size, deref_type
      if (!has(s, 1)) return malformed();
      unsigned size = code == 0x06 ? format_.address_size : static_cast<unsigned>(op.operand[0]);
      if (size == 0 || size > 8) return refused(code, "of " + std::to_string(size) + " bytes is not supported");
      bool last = op.end == bytes_.size() || bytes_[op.end] == 0x9f;
      if (auto loaded = deref(s, size, last, code); !loaded) return loaded;
      if (code == 0xa6 || code == 0xf6) return convert(s, op.operand[1], code);
      return Ok{};
    }
    if (code == 0xa8 || code == 0xf7) {  // DW_OP_convert
      if (!has(s, 1)) return malformed();
      return convert(s, op.operand[0], code);
    }
    if (code == 0xa9 || code == 0xf9 || code == 0x96 || code == 0xf0) {
      // DW_OP_reinterpret (the same bits as another type of the same size),
      // DW_OP_nop, DW_OP_GNU_uninit: nothing to compute.
      if ((code == 0xa9 || code == 0xf9) && !has(s, 1)) return malformed();
      return Ok{};
    }
    return std::nullopt;
  }

  // What ends a location description: a register, the value itself, an
  // implicit value, a piece of a larger one.
  std::optional<Status> describe_location(State &s, const Operation &op) {
    uint8_t code = op.code;
    if (code >= 0x50 && code <= 0x6f) {
      s.register_location = code - 0x50;
    } else if (code == 0x90) {
      s.register_location = static_cast<int>(op.operand[0]);
    } else if (code == 0x9f) {
      s.stack_value = true;
    } else if (code == 0x9e) {  // DW_OP_implicit_value
      if (op.block.size() > 8) return refused(code, "larger than 8 bytes is not supported");
      s.implicit = Place::known(static_cast<int64_t>(block_value(op.block)));
    } else if (code == 0x93 || code == 0x9d) {  // DW_OP_piece, DW_OP_bit_piece
      return piece(s, op);
    } else {
      return std::nullopt;
    }
    return Ok{};
  }

  // Why an operation no probe can do is refused.
  static Error unsupported(uint8_t code) {
    if (code == 0x9b || code == 0xe0)
      return refused(code, "(a thread-local variable) is not supported: a probe cannot find the thread's TLS block");
    if (code == 0xa0 || code == 0xf2)
      return refused(code, "(a pointer to a value the compiler kept out of memory) is not supported: there is no "
                           "address to fetch");
    if (code == 0xfa) return refused(code, "(a value the caller passed, from its call site) is not supported");
    if (code == 0xfd) return refused(code, "(another variable's value) is not supported");
    if (code == 0x97) return refused(code, "is not supported: a variable's location has no object to push");
    if (code == 0x98 || code == 0x99 || code == 0x9a)
      return refused(code, "(a call to another DIE's expression) is not supported");
    if (code == 0x18 || code == 0x95 || code == 0xa7) return refused(code, "(an address space) is not supported");
    return refused(code, "is not supported");
  }

  // An operation's block of 8 bytes at most as a number, in the target's byte order.
  uint64_t block_value(std::span<const uint8_t> block) const {
    uint64_t v = 0;
    for (size_t i = 0; i < block.size(); ++i)
      v |= static_cast<uint64_t>(block[format_.little_endian ? i : block.size() - 1 - i]) << (8 * i);
    return v;
  }

  Result<Value> frame_base() {
    if (in_frame_base_) return Error("DW_OP_fbreg refers to the frame base itself");
    auto bytes = context_.frame_base();
    if (!bytes) return std::move(bytes).error();
    if (bytes->empty()) return Error("its function's frame base is empty");
    // The frame base is a location; DW_OP_regN there means the register's
    // value is the base (DWARF 5 section 2.5.1.2).
    std::vector<uint8_t> fb = std::move(*bytes);
    Evaluator inner(fb, format_, context_, 0);
    inner.in_frame_base_ = true;
    auto end = inner.run(State{}, kMaxForks);
    if (!end) return std::move(end).error().context("its function's frame base: ");
    if (end->register_location && end->stack.empty()) return register_plus(*end->register_location, 0);
    if (!end->pieces.empty() || end->implicit || end->stack.empty())
      return Error("its function's frame base is not an address");
    Value v = end->stack.back();
    if (v.kind == Value::Kind::Computed) return Error("its function's frame base is computed by operations kernel fetch-args cannot do");
    return v;
  }

  Status add_constant(State &s, int64_t k, uint8_t code) {
    Value &v = s.stack.back();
    switch (v.kind) {
      case Value::Kind::Constant: v.number += static_cast<uint64_t>(k); return Ok{};
      case Value::Kind::Address: v.addend += k; return Ok{};
      case Value::Kind::Fetch:
        if (!v.pending_shl) {
          v.addend += k;
          return Ok{};
        }
        break;
      case Value::Kind::Computed: break;
    }
    Value top = std::move(v);
    s.stack.pop_back();
    return push_computed(s, {std::move(top)}, {{ValueOp::AddConst, static_cast<uint64_t>(k)}}, code);
  }

  Status binary_op(State &s, uint8_t code, ValueOp op) {
    Value rhs = std::move(s.stack.back());
    s.stack.pop_back();
    Value lhs = std::move(s.stack.back());
    s.stack.pop_back();
    using K = Value::Kind;
    if (lhs.kind == K::Constant && rhs.kind == K::Constant) {
      auto v = fold({lhs.number, rhs.number}, {{op}});
      if (!v) return refused(code, "by zero");
      s.stack.push_back(constant(*v));
      return Ok{};
    }
    if (op == ValueOp::Add || op == ValueOp::Sub) {
      bool minus = op == ValueOp::Sub;
      if (rhs.kind == K::Constant) {
        s.stack.push_back(std::move(lhs));
        return add_constant(s, minus ? -static_cast<int64_t>(rhs.number) : static_cast<int64_t>(rhs.number), code);
      }
      if (!minus && lhs.kind == K::Constant) {
        s.stack.push_back(std::move(rhs));
        return add_constant(s, static_cast<int64_t>(lhs.number), code);
      }
      if (minus && lhs.kind == K::Address && rhs.kind == K::Address) {  // the distance of two globals
        s.stack.push_back(constant(lhs.number + static_cast<uint64_t>(lhs.addend) - rhs.number -
                                   static_cast<uint64_t>(rhs.addend)));
        return Ok{};
      }
    }
    if (rhs.kind == K::Constant && lhs.kind == K::Fetch &&
        (op == ValueOp::Shl || op == ValueOp::Shr || op == ValueOp::Shra || op == ValueOp::And) &&
        take_bits(lhs, op, rhs.number)) {
      s.stack.push_back(std::move(lhs));  // the kernel takes the bits
      return Ok{};
    }
    return push_computed(s, {std::move(lhs), std::move(rhs)}, {{op}}, code);
  }

  // DW_OP_shl/shr/shra/and by the constant `k` done by the kernel's bitfield
  // fetch, which takes a run of bits (a member packed into a register, a
  // 32-bit value in a 64-bit register): "x << k >> k" keeps the low 64 - k
  // bits, the variable's type then says whether they are signed. False
  // when it cannot (the decoder does it then).
  static bool take_bits(Value &e, ValueOp op, uint64_t k) {
    FetchExpr &x = e.fetch;
    if (e.addend != 0 || x.root == FetchExpr::Root::GlobalAddress) return false;
    if (op == ValueOp::Shl) {
      if (e.pending_shl || k == 0 || k >= 64) return false;
      e.pending_shl = static_cast<unsigned>(k);
      return true;
    }
    if (op == ValueOp::And) {
      if (e.pending_shl || k == 0 || (k & (k + 1)) != 0) return false;
      x.bit_width = std::min(x.bit_width, static_cast<unsigned>(std::popcount(k)));
      return true;
    }
    if (k >= 64) return false;
    if (e.pending_shl) {
      // Only "shl k; shr k" is a run of bits; "shl k; shra k" is one signed,
      // which the variable's type gives only when it is as narrow.
      if (k != e.pending_shl || (op == ValueOp::Shra && 64 - k < x.bit_width)) return false;
      x.bit_width = std::min(x.bit_width, 64 - static_cast<unsigned>(k));
      e.pending_shl = 0;
      return true;
    }
    if (op == ValueOp::Shra || k >= x.bit_width) return false;
    x.bit_offset += static_cast<unsigned>(k);
    x.bit_width -= static_cast<unsigned>(k);
    return true;
  }

  Status deref(State &s, unsigned size, bool last, uint8_t code) {
    Value &top = s.stack.back();
    if (top.kind == Value::Kind::Fetch && !top.fetch.decoder_computed() && !top.pending_shl &&
        top.fetch.root != FetchExpr::Root::GlobalAddress && top.fetch.root != FetchExpr::Root::InstructionPointer) {
      top.fetch.loads.push_back(top.addend);
      top.addend = 0;
    } else if (top.kind == Value::Kind::Address || top.kind == Value::Kind::Constant) {
      FetchExpr global;
      global.root = FetchExpr::Root::GlobalMemory;
      global.address = top.number + static_cast<uint64_t>(top.addend);
      top = Value();
      top.kind = Value::Kind::Fetch;
      top.fetch = global;
    } else {
      // Through an address the kernel cannot compute: the decoder loads from
      // the stack frame, fetched whole.
      auto address = tree_of(top);
      if (!address) return refused(code, "through a global's computed address is not supported");
      auto load = std::make_shared<Tree>();
      load->kind = Tree::Kind::Load;
      load->number = size;
      load->args = {*address};
      top = computed(load);
      return Ok{};
    }
    // DW_OP_deref_size N loads N bytes, zero-extended: as the last load the
    // variable's type reads them; on the way to a computation, the load's
    // low N * 8 bits. Narrower than the variable, the decoder zero-extends.
    if (size >= 8) return Ok{};
    if (!last) {
      top.fetch.bit_width = size * 8;
    } else if (value_bytes_ && size < value_bytes_) {
      Value v = std::move(top);
      s.stack.pop_back();
      return push_computed(s, {std::move(v)}, {{ValueOp::ZeroExtend, size * 8}}, code);
    }
    return Ok{};
  }

  // DW_OP_convert and the typed operations: the value as a base type of N bytes.
  Status convert(State &s, uint64_t type_offset, uint8_t code) {
    if (type_offset == 0) return Ok{};  // the generic type
    auto type = context_.base_type(type_offset);
    if (!type) return std::move(type).error();
    unsigned bits = std::min(type->bytes * 8, 64u);
    if (bits >= 64 || bits == 0) return Ok{};
    Value &top = s.stack.back();
    if (top.kind == Value::Kind::Constant) {
      top.number = type->is_signed ? *fold({top.number}, {{ValueOp::SignExtend, bits}}) : low_bits(top.number, bits);
      return Ok{};
    }
    // The kernel keeps the low bits; the variable's type extends them, which
    // is the conversion's extension when the type is no wider.
    bool type_extends = value_bytes_ && value_bytes_ * 8 <= bits;
    if (top.kind == Value::Kind::Fetch && top.addend == 0 && !top.pending_shl &&
        (!type->is_signed || top.fetch.bit_width <= bits || type_extends)) {
      top.fetch.bit_width = std::min(top.fetch.bit_width, bits);
      return Ok{};
    }
    Value v = std::move(top);
    s.stack.pop_back();
    return push_computed(s, {std::move(v)}, {{type->is_signed ? ValueOp::SignExtend : ValueOp::ZeroExtend, bits}},
                         code);
  }

  Status piece(State &s, const Operation &op) {
    Piece p;
    if (op.code == 0x9d) {
      if (op.operand[1] != 0 || op.operand[0] % 8 != 0)
        return refused(op.code, "of bits not on a byte boundary is not supported");
      p.size = op.operand[0] / 8;
    } else {
      p.size = op.operand[0];
    }
    bool empty = !s.implicit && !s.register_location && s.stack.empty();  // the compiler dropped these bytes
    if (!empty) {
      auto place = finish(s);
      if (!place) return std::move(place).error();
      p.place.push_back(std::move(*place));
    }
    s.pieces.push_back(std::move(p));
    s.stack.clear();
    s.register_location.reset();
    s.implicit.reset();
    s.stack_value = false;
    return Ok{};
  }

  // The value a register had when the function was entered. At the entry
  // itself that is the register now; elsewhere a companion probe at the
  // entry reads it, and the event stream joins the two per thread.
  Status entry_value(State &s, const Operation &op) {
    std::optional<int> reg;
    if (op.block.size() == 1 && op.block[0] >= 0x50 && op.block[0] <= 0x6f) reg = op.block[0] - 0x50;
    if (!op.block.empty() && op.block[0] == 0x90) {
      auto inner = read_operation(op.block, 0, format_);
      if (inner && inner->end == op.block.size()) reg = static_cast<int>(inner->operand[0]);
    }
    if (!reg) return refused(op.code, "of something other than a register is not supported");
    Value v = register_plus(*reg, 0);
    if (!context_.at_function_entry()) v.fetch.root = FetchExpr::Root::EntryRegister;
    s.stack.push_back(std::move(v));
    return Ok{};
  }

  // The Place the finished state `s` describes.
  Result<Place> finish(const State &s) {
    if (s.implicit) return *s.implicit;
    if (s.register_location) return Place::in_register(*s.register_location);
    if (s.stack.empty()) return Error("its location expression is empty");
    const Value &top = s.stack.back();
    using K = Value::Kind;
    if (top.kind == K::Computed || (top.kind == K::Fetch && top.pending_shl)) {
      auto t = tree_of(top);
      if (!t) return Error("its value is computed from a global's address");
      if (!s.stack_value) {
        // In memory at a computed address: the decoder loads it.
        uint64_t size = value_bytes_ ? value_bytes_ : 8;
        if (size != 1 && size != 2 && size != 4 && size != 8)
          return Error("it is in memory at an address computed from run-time values, and is " + std::to_string(size) +
                       " bytes long; the decoder loads 1, 2, 4 or 8");
        auto load = std::make_shared<Tree>();
        load->kind = Tree::Kind::Load;
        load->number = size;
        load->args = {*t};
        t = load;
      }
      return linearize(*t);
    }
    if (top.kind == K::Fetch && s.stack_value && (top.addend != 0 || top.fetch.decoder_computed())) {
      // The kernel fetches the bits, our decoder adds.
      FetchExpr v = top.fetch;
      v.post_add += top.addend;
      return Place::value(v);
    }
    if (top.kind == K::Fetch && top.fetch.decoder_computed()) {
      auto t = tree_of(top);
      auto load = std::make_shared<Tree>();
      load->kind = Tree::Kind::Load;
      load->number = value_bytes_ && value_bytes_ <= 8 ? value_bytes_ : 8;
      load->args = {*t};
      return linearize(load);
    }
    if (s.stack_value) {
      if (top.kind == K::Constant) return Place::known(static_cast<int64_t>(top.number));
      if (top.kind == K::Address) {
        FetchExpr address;
        address.root = FetchExpr::Root::GlobalAddress;
        address.address = top.number + static_cast<uint64_t>(top.addend);
        return Place::value(address);
      }
      const FetchExpr &e = top.fetch;
      if (e.root == FetchExpr::Root::Register && e.loads.empty()) return Place::in_register(e.dwarf_reg);
      if (e.root == FetchExpr::Root::EntryRegister && e.loads.empty()) return Place::value(e);
      if (e.root == FetchExpr::Root::GlobalMemory && e.loads.empty()) return Place::at_address(e.address);
      FetchExpr base = e;
      int64_t last = base.loads.back();
      base.loads.pop_back();
      return Place::at(base, last);
    }
    if (top.kind == K::Fetch) return Place::at(top.fetch, top.addend);
    return Place::at_address(top.number + static_cast<uint64_t>(top.addend));
  }

  // The decoder's program for tree `t`: its leaves become the FetchExpr's
  // own fetch (term 0) and its terms; the steps run over them.
  Result<Place> linearize(const TreeRef &t) {
    std::vector<FetchExpr> leaves;
    std::vector<ValueStep> steps;
    if (auto emitted = emit(t, leaves, steps); !emitted) return std::move(emitted).error();
    if (leaves.empty()) {
      auto v = fold({0}, steps);
      if (!v) return Error("its value divides by zero");
      return Place::known(static_cast<int64_t>(*v));
    }
    bool entry = needs_entry_values(leaves[0]);
    for (const FetchExpr &leaf : leaves)
      if (needs_entry_values(leaf) != entry)
        return Error("its value is computed from a register's value at the function's entry (DW_OP_entry_value, "
                     "read by a companion probe there) and a value at this probe; the decoder finishes a value from "
                     "the fields of one event, and these come in two");
    if (!steps.empty() && steps.front().op == ValueOp::PushTerm && steps.front().operand == 0)
      steps.erase(steps.begin());  // term 0 starts the stack already
    if (leaves[0].window) return Error("its value is loaded from a constant address in the stack frame");
    FetchExpr out = leaves[0];
    out.terms.assign(leaves.begin() + 1, leaves.end());
    out.program = std::move(steps);
    return Place::value(std::move(out));
  }

  // The leaf's term number, added when new.
  static uint64_t term_of(const FetchExpr &leaf, std::vector<FetchExpr> &leaves) {
    for (size_t i = 0; i < leaves.size(); ++i)
      if (leaves[i] == leaf) return i;
    leaves.push_back(leaf);
    return leaves.size() - 1;
  }

  Status emit(const TreeRef &t, std::vector<FetchExpr> &leaves, std::vector<ValueStep> &out) {
    switch (t->kind) {
      case Tree::Kind::Constant:
        out.push_back({ValueOp::PushConst, t->number});
        return Ok{};
      case Tree::Kind::Leaf:
        if (t->leaf.root == FetchExpr::Root::GlobalAddress)
          return Error("its value is computed from a global's run-time address");
        out.push_back({ValueOp::PushTerm, term_of(t->leaf, leaves)});
        return Ok{};
      case Tree::Kind::Op: {
        // x + k and x - k as one step.
        if (t->args.size() == 2 && t->args[1]->kind == Tree::Kind::Constant && t->steps.size() == 1 &&
            (t->steps[0].op == ValueOp::Add || t->steps[0].op == ValueOp::Sub)) {
          if (auto e = emit(t->args[0], leaves, out); !e) return e;
          uint64_t k = t->args[1]->number;
          out.push_back({ValueOp::AddConst, t->steps[0].op == ValueOp::Add ? k : -k});
          return Ok{};
        }
        for (const TreeRef &a : t->args)
          if (auto e = emit(a, leaves, out); !e) return e;
        out.insert(out.end(), t->steps.begin(), t->steps.end());
        return Ok{};
      }
      case Tree::Kind::Select: {
        // cond; bra over "else; skip over then"; then.
        std::vector<ValueStep> then, otherwise;
        if (auto e = emit(t->args[0], leaves, out); !e) return e;
        if (auto e = emit(t->args[1], leaves, then); !e) return e;
        if (auto e = emit(t->args[2], leaves, otherwise); !e) return e;
        out.push_back({ValueOp::Branch, otherwise.size() + 1});
        out.insert(out.end(), otherwise.begin(), otherwise.end());
        out.push_back({ValueOp::Skip, then.size()});
        out.insert(out.end(), then.begin(), then.end());
        return Ok{};
      }
      case Tree::Kind::Load: {
        auto window = frame_window();
        if (!window) return std::move(window).error();
        if (auto e = emit(t->args[0], leaves, out); !e) return e;
        // The window is [CFA - bytes, CFA): the frame, and below the stack
        // pointer the red zone a leaf function keeps its locals in.
        FetchExpr reg;
        reg.root = FetchExpr::Root::Register;
        reg.dwarf_reg = window->reg;
        int64_t start = window->cfa_offset - static_cast<int64_t>(window->bytes);
        FetchExpr bytes = reg;
        bytes.loads = {start};
        bytes.window = static_cast<unsigned>(window->bytes);
        out.push_back({ValueOp::PushTerm, term_of(reg, leaves)});
        if (start) out.push_back({ValueOp::AddConst, static_cast<uint64_t>(start)});
        ValueStep load{ValueOp::Load, term_of(bytes, leaves)};
        load.size = static_cast<unsigned>(t->number);
        out.push_back(load);
        return Ok{};
      }
    }
    return Ok{};
  }

  struct Window {
    int reg = 0;
    int64_t cfa_offset = 0;  // CFA = reg + cfa_offset
    uint64_t bytes = 0;
  };
  // Where a computed address is looked up (a local array indexed by a
  // register): the bytes below the CFA, the whole frame and the 128 bytes
  // below the stack pointer (x86_64's red zone), at most 512.
  Result<Window> frame_window() {
    auto cfa = context_.call_frame_cfa();
    if (!cfa) return std::move(cfa).error().context("a load through a computed address needs the stack frame: ");
    if (cfa->offset < 0) return Error("it is loaded through a computed address, and the stack frame here has no known size");
    uint64_t bytes = std::min<uint64_t>(static_cast<uint64_t>(cfa->offset) + 128, kMaxWindow) & ~uint64_t{7};
    return Window{cfa->reg, cfa->offset, bytes};
  }

  std::span<const uint8_t> bytes_;
  ExpressionFormat format_;
  ExpressionContext &context_;
  uint64_t value_bytes_;
  size_t steps_ = 0;
  bool in_frame_base_ = false;
};

}  // namespace

Result<Place> evaluate_location(std::span<const uint8_t> bytes, const ExpressionFormat &format,
                                ExpressionContext &context, uint64_t value_bytes) {
  if (bytes.empty()) return Error("its location is empty here (optimized out)");
  return Evaluator(bytes, format, context, value_bytes).evaluate();
}

}  // namespace kpp::dwarf
