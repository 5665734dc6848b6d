// The symbolic evaluator behind evaluate_location() (expression.h), internal
// to dwarf/expr: the values its stack holds, one path's state, and the
// Evaluator that runs the operations over them (evaluator.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "dwarf/expr/expression.h"
#include "dwarf/expr/expression_ops.h"

namespace kpp::dwarf::evaluation {

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

// Evaluation state: one path through the expression.
struct State {
  size_t pc = 0;
  std::vector<Value> stack;
  std::optional<int> register_location;
  bool stack_value = false;
  std::optional<Place> implicit;
  std::vector<Piece> pieces;
};

class Evaluator {
 public:
  Evaluator(std::span<const uint8_t> bytes, const ExpressionFormat &format, ExpressionContext &context,
            uint64_t value_bytes);

  Result<Place> evaluate();

 private:
  // Runs `s` to the end of the expression.
  Result<State> run(State s, unsigned forks);

  std::optional<size_t> jump(const Operation &op) const;

  // DW_OP_bra on a run-time value: both ways, then the value is chosen by
  // the condition (by the decoder) when both end in the same kind of place.
  Result<State> fork(State s, Value cond, size_t target, unsigned forks);

  // A value as a tree of the decoder's operations over fetched leaves.
  std::optional<TreeRef> tree_of(const Value &v);

  Status push_computed(State &s, std::vector<Value> operands, std::vector<ValueStep> steps, uint8_t code);

  // One operation, by the kind of job it does (DWARF 5 section 2.5.1 and 2.6.1).
  Status step(State &s, const Operation &op);

  static bool has(const State &s, size_t n);

  // Literals, addresses and register values pushed on the stack; nullopt
  // when `op` is not one of them.
  std::optional<Status> push_value(State &s, const Operation &op);

  // dup, drop, over, pick, swap, rot: they move descriptions, whatever they
  // describe.
  std::optional<Status> move_stack(State &s, const Operation &op);

  // The arithmetic and logical operations and the comparisons.
  std::optional<Status> compute(State &s, const Operation &op);

  // Loads through the top of the stack and changes of its type.
  std::optional<Status> load_or_convert(State &s, const Operation &op);

  // What ends a location description: a register, the value itself, an
  // implicit value, a piece of a larger one.
  std::optional<Status> describe_location(State &s, const Operation &op);

  // Why an operation no probe can do is refused.
  static Error unsupported(uint8_t code);

  // An operation's block of 8 bytes at most as a number, in the target's byte order.
  uint64_t block_value(std::span<const uint8_t> block) const;

  Result<Value> frame_base();

  Status add_constant(State &s, int64_t k, uint8_t code);

  Status binary_op(State &s, uint8_t code, ValueOp op);

  // DW_OP_shl/shr/shra/and by the constant `k` done by the kernel's bitfield
  // fetch, which takes a run of bits (a member packed into a register, a
  // 32-bit value in a 64-bit register): "x << k >> k" keeps the low 64 - k
  // bits, the variable's type then says whether they are signed. False
  // when it cannot (the decoder does it then).
  static bool take_bits(Value &e, ValueOp op, uint64_t k);

  Status deref(State &s, unsigned size, bool last, uint8_t code);

  // DW_OP_convert and the typed operations: the value as a base type of N bytes.
  Status convert(State &s, uint64_t type_offset, uint8_t code);

  Status piece(State &s, const Operation &op);

  // The value a register had when the function was entered. At the entry
  // itself that is the register now; elsewhere a companion probe at the
  // entry reads it, and the event stream joins the two per thread.
  Status entry_value(State &s, const Operation &op);

  // The Place the finished state `s` describes.
  Result<Place> finish(const State &s);

  // The decoder's program for tree `t`: its leaves become the FetchExpr's
  // own fetch (term 0) and its terms; the steps run over them.
  Result<Place> linearize(const TreeRef &t);

  // The leaf's term number, added when new.
  static uint64_t term_of(const FetchExpr &leaf, std::vector<FetchExpr> &leaves);

  Status emit(const TreeRef &t, std::vector<FetchExpr> &leaves, std::vector<ValueStep> &out);

  struct Window {
    int reg = 0;
    int64_t cfa_offset = 0;  // CFA = reg + cfa_offset
    uint64_t bytes = 0;
  };
  // Where a computed address is looked up (a local array indexed by a
  // register): the bytes below the CFA, the whole frame and the 128 bytes
  // below the stack pointer (x86_64's red zone), at most 512.
  Result<Window> frame_window();

  std::span<const uint8_t> bytes_;
  ExpressionFormat format_;
  ExpressionContext &context_;
  uint64_t value_bytes_;
  size_t steps_ = 0;
  bool in_frame_base_ = false;
};

}  // namespace kpp::dwarf::evaluation
