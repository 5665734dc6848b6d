#include "util/value_fixup.h"

#include <array>
#include <cctype>
#include <cstdio>

#include "util/strings.h"

namespace kpp {

namespace {
constexpr std::string_view kSuffix = "__k";

struct Letter {
  char c;
  ValueOp op;
};
// The steps without an operand, one letter each (capitals compute, y l z o h show).
constexpr std::array<Letter, 30> kLetters{{
    {'A', ValueOp::Add},  {'S', ValueOp::Sub},  {'M', ValueOp::Mul},  {'D', ValueOp::Div},  {'V', ValueOp::Mod},
    {'B', ValueOp::And},  {'O', ValueOp::Or},   {'X', ValueOp::Xor},  {'L', ValueOp::Shl},  {'R', ValueOp::Shr},
    {'H', ValueOp::Shra}, {'N', ValueOp::Neg},  {'T', ValueOp::Not},  {'Z', ValueOp::Abs},  {'E', ValueOp::Eq},
    {'F', ValueOp::Ne},   {'C', ValueOp::Lt},   {'G', ValueOp::Gt},   {'I', ValueOp::Le},   {'J', ValueOp::Ge},
    {'K', ValueOp::Dup},  {'P', ValueOp::Drop}, {'W', ValueOp::Swap}, {'Q', ValueOp::Over}, {'U', ValueOp::Rot},
    {'y', ValueOp::ShowText}, {'l', ValueOp::ShowCharArray}, {'z', ValueOp::ShowItems}, {'o', ValueOp::ShowBool}, {'h', ValueOp::ShowChar},
}};

uint64_t low_bits(uint64_t v, unsigned bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }
uint64_t sign_from(uint64_t v, unsigned bits) {
  if (bits == 0 || bits >= 64) return v;
  unsigned shift = 64 - bits;
  return static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
}

// `v` in hex digits alone, as the program's text writes operands.
std::string digits_of(uint64_t v) { return hex(v).substr(2); }

// Reads a field name's code. Returns false on anything malformed.
class CodeReader {
 public:
  explicit CodeReader(std::string_view text) : text_(text) {}

  bool read(ValueFixup &out) {
    // A term: its number first ("__k2r2A"), or the first form ("__kt1", "__kn1").
    if (at_digit()) {
      auto n = number(false, 2);
      if (!n || *n == 0) return false;
      out.term = static_cast<unsigned>(*n);
    } else if (i_ < text_.size() && (text_[i_] == 't' || text_[i_] == 'n')) {
      bool minus = text_[i_++] == 'n';
      auto n = number(false, 2);
      if (!n || *n == 0 || i_ != text_.size()) return false;
      out.term = static_cast<unsigned>(*n);
      out.steps = {{ValueOp::PushTerm, *n}, {minus ? ValueOp::Sub : ValueOp::Add}};
      return true;
    }
    while (i_ < text_.size()) {
      auto step = next();
      if (!step) return false;
      out.steps.push_back(*step);
    }
    return !out.empty();
  }

 private:
  bool at_digit() const { return i_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i_])); }

  // A decimal (no leading zero) or lowercase hex number of at most `max` digits.
  std::optional<uint64_t> number(bool hex_digits, size_t max) {
    size_t start = i_;
    auto is_digit = [&](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || (hex_digits && c >= 'a' && c <= 'f');
    };
    while (i_ < text_.size() && is_digit(text_[i_])) ++i_;
    std::string_view d = text_.substr(start, i_ - start);
    if (d.empty() || d.size() > max || (!hex_digits && d.size() > 1 && d[0] == '0')) return std::nullopt;
    return std::stoull(std::string(d), nullptr, hex_digits ? 16 : 10);
  }

  std::optional<ValueStep> next() {
    char c = text_[i_++];
    for (const Letter &l : kLetters)
      if (l.c == c) return ValueStep{l.op};
    ValueStep s;
    std::optional<uint64_t> n;
    switch (c) {
      case 'p':
      case 'm':
      case 'k':
        n = number(true, 16);
        if (!n) return std::nullopt;
        s.op = c == 'k' ? ValueOp::PushConst : ValueOp::AddConst;
        s.operand = c == 'm' ? -*n : *n;
        return s;
      case 's':
      case 'u':
        n = number(false, 2);
        if (!n || *n == 0 || *n > 64) return std::nullopt;
        s.op = c == 's' ? ValueOp::SignExtend : ValueOp::ZeroExtend;
        s.operand = *n;
        return s;
      case 'a':
        n = number(false, 1);
        if (!n || *n == 0 || *n > 2) return std::nullopt;
        return ValueStep{ValueOp::Present, *n};
      case 'q':
        n = number(true, 16);
        if (!n) return std::nullopt;
        return ValueStep{ValueOp::ShowEnum, *n};
      case 'g':
        n = number(false, 2);
        if (!n || (*n != 4 && *n != 8 && *n != 10)) return std::nullopt;
        return ValueStep{ValueOp::ShowFloat, *n};
      case 'r': s.op = ValueOp::PushTerm; break;
      case 'v': s.op = ValueOp::Pick; break;
      case 'i': s.op = ValueOp::Skip; break;
      case 'w': s.op = ValueOp::Branch; break;
      case 'x': {
        if (i_ >= text_.size()) return std::nullopt;
        char size = text_[i_++];
        if (size != '1' && size != '2' && size != '4' && size != '8') return std::nullopt;
        s.op = ValueOp::Load;
        s.size = static_cast<unsigned>(size - '0');
        break;
      }
      default:
        return std::nullopt;
    }
    n = number(false, 3);
    if (!n) return std::nullopt;
    s.operand = *n;
    return s;
  }

  std::string_view text_;
  size_t i_ = 0;
};

// A bounded stack for the program.
class Stack {
 public:
  bool push(uint64_t v) {
    if (size_ == values_.size()) return false;
    values_[size_++] = v;
    return true;
  }
  bool has(size_t n) const { return size_ >= n; }
  uint64_t pop() { return values_[--size_]; }
  uint64_t &top(size_t depth = 0) { return values_[size_ - 1 - depth]; }

 private:
  std::array<uint64_t, 64> values_{};
  size_t size_ = 0;
};

// A binary step on (a, b) = (second, top); nullopt for a division by zero.
std::optional<uint64_t> binary(ValueOp op, uint64_t a, uint64_t b) {
  auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  switch (op) {
    case ValueOp::Add: return a + b;
    case ValueOp::Sub: return a - b;
    case ValueOp::Mul: return a * b;
    case ValueOp::Div:  // DWARF's generic type is signed (gdb agrees)
      if (b == 0) return std::nullopt;
      if (sa == INT64_MIN && sb == -1) return a;
      return static_cast<uint64_t>(sa / sb);
    case ValueOp::Mod:  // gdb takes DW_OP_mod unsigned
      if (b == 0) return std::nullopt;
      return a % b;
    case ValueOp::And: return a & b;
    case ValueOp::Or: return a | b;
    case ValueOp::Xor: return a ^ b;
    case ValueOp::Shl: return b >= 64 ? 0 : a << b;
    case ValueOp::Shr: return b >= 64 ? 0 : a >> b;
    case ValueOp::Shra: return static_cast<uint64_t>(sa >> (b >= 64 ? 63 : b));
    case ValueOp::Eq: return a == b;
    case ValueOp::Ne: return a != b;
    case ValueOp::Lt: return sa < sb;
    case ValueOp::Gt: return sa > sb;
    case ValueOp::Le: return sa <= sb;
    case ValueOp::Ge: return sa >= sb;
    default: return a;
  }
}

}  // namespace

ValueFixup ValueFixup::add_and_keep(int64_t add, unsigned sign_bits, unsigned zero_bits) {
  ValueFixup f;
  if (add) f.steps.push_back({ValueOp::AddConst, static_cast<uint64_t>(add)});
  if (sign_bits && sign_bits < 64) f.steps.push_back({ValueOp::SignExtend, sign_bits});
  else if (zero_bits && zero_bits < 64) f.steps.push_back({ValueOp::ZeroExtend, zero_bits});
  return f;
}

std::optional<uint64_t> ValueFixup::apply(uint64_t raw) const {
  ProgramLeaf leaf{raw, {}};
  return run_value_program(steps, std::span<const ProgramLeaf>(&leaf, 1)).value;
}

std::string step_text(const ValueStep &step) {
  for (const Letter &l : kLetters)
    if (l.op == step.op) return std::string(1, l.c);
  switch (step.op) {
    case ValueOp::AddConst: {
      auto v = static_cast<int64_t>(step.operand);
      return v < 0 ? "m" + digits_of(-step.operand) : "p" + digits_of(step.operand);
    }
    case ValueOp::PushConst: return "k" + digits_of(step.operand);
    case ValueOp::SignExtend: return "s" + std::to_string(step.operand);
    case ValueOp::ZeroExtend: return "u" + std::to_string(step.operand);
    case ValueOp::ShowFloat: return "g" + std::to_string(step.operand);
    case ValueOp::ShowEnum: return "q" + digits_of(step.operand);
    case ValueOp::Present: return "a" + std::to_string(step.operand);
    case ValueOp::PushTerm: return "r" + std::to_string(step.operand);
    case ValueOp::Pick: return "v" + std::to_string(step.operand);
    case ValueOp::Skip: return "i" + std::to_string(step.operand);
    case ValueOp::Branch: return "w" + std::to_string(step.operand);
    case ValueOp::Load: return "x" + std::to_string(step.size) + std::to_string(step.operand);
    default: return "?";
  }
}

std::string field_name_with_fixup(std::string_view name, const ValueFixup &fixup) {
  std::string out(name);
  if (fixup.empty()) return out;
  out += kSuffix;
  // A term pushed and added or subtracted has the first form's short name.
  const auto &st = fixup.steps;
  if (fixup.term && st.size() == 2 && st[0].op == ValueOp::PushTerm && st[0].operand == fixup.term &&
      (st[1].op == ValueOp::Add || st[1].op == ValueOp::Sub))
    return out + (st[1].op == ValueOp::Sub ? "n" : "t") + std::to_string(fixup.term);
  if (fixup.term) out += std::to_string(fixup.term);
  for (const ValueStep &s : fixup.steps) out += step_text(s);
  return out;
}

NamedFixup split_fixup(std::string_view field_name) {
  NamedFixup whole{std::string(field_name), {}};
  size_t at = field_name.rfind(kSuffix);
  if (at == std::string_view::npos || at == 0) return whole;
  ValueFixup fixup;
  if (!CodeReader(field_name.substr(at + kSuffix.size())).read(fixup)) return whole;
  return {std::string(field_name.substr(0, at)), fixup};
}

namespace {

// The ops that only rearrange or change the values on the stack; false when
// the stack holds too few (or too many) for `op`.
bool run_stack_op(ValueOp op, Stack &stack) {
  switch (op) {
    case ValueOp::Neg:
    case ValueOp::Not:
    case ValueOp::Abs:
    case ValueOp::Dup:
    case ValueOp::Drop: {
      if (!stack.has(1)) return false;
      uint64_t &t = stack.top();
      if (op == ValueOp::Neg) t = -t;
      else if (op == ValueOp::Not) t = ~t;
      else if (op == ValueOp::Abs) t = static_cast<int64_t>(t) < 0 ? -t : t;
      else if (op == ValueOp::Dup) return stack.push(t);
      else stack.pop();
      return true;
    }
    case ValueOp::Swap:
      if (!stack.has(2)) return false;
      std::swap(stack.top(), stack.top(1));
      return true;
    case ValueOp::Over:
      return stack.has(2) && stack.push(stack.top(1));
    case ValueOp::Rot: {  // (a b c -- c a b): the top goes third
      if (!stack.has(3)) return false;
      uint64_t c = stack.top(), b = stack.top(1), a = stack.top(2);
      stack.top(2) = c;
      stack.top(1) = a;
      stack.top() = b;
      return true;
    }
    default:
      return false;
  }
}

bool is_stack_op(ValueOp op) {
  switch (op) {
    case ValueOp::Neg: case ValueOp::Not: case ValueOp::Abs: case ValueOp::Dup: case ValueOp::Drop:
    case ValueOp::Swap: case ValueOp::Over: case ValueOp::Rot:
      return true;
    default:
      return false;
  }
}

// The low bits a SignExtend or ZeroExtend step keeps of `v`.
uint64_t keep_bits(const ValueStep &s, uint64_t v) {
  auto bits = static_cast<unsigned>(s.operand);
  return s.op == ValueOp::SignExtend ? sign_from(v, bits) : low_bits(v, bits);
}

// A load of `size` bytes at `address` from the window of memory fetched
// from `start`; nullopt when the address lies outside it.
std::optional<uint64_t> load_from_window(std::span<const uint8_t> window, uint64_t start, uint64_t address,
                                         unsigned size) {
  uint64_t offset = address - start;
  if (address < start || offset > window.size() || window.size() - offset < size) return std::nullopt;
  uint64_t v = 0;
  for (unsigned b = 0; b < size; ++b) v |= static_cast<uint64_t>(window[offset + b]) << (8 * b);
  return v;
}

}  // namespace

ProgramResult run_value_program(std::span<const ValueStep> steps, std::span<const ProgramLeaf> leaves) {
  Stack stack;
  const ProgramResult malformed{std::nullopt, "malformed program"};
  if (leaves.empty() || !stack.push(leaves[0].value)) return malformed;
  for (size_t pc = 0; pc < steps.size(); ++pc) {
    const ValueStep &s = steps[pc];
    if (is_stack_op(s.op)) {
      if (!run_stack_op(s.op, stack)) return malformed;
      continue;
    }
    if (is_display_op(s.op)) continue;  // the decoder shows the result (value_fixup.h)
    switch (s.op) {
      case ValueOp::PushConst:
        if (!stack.push(s.operand)) return malformed;
        break;
      case ValueOp::SignExtend:
      case ValueOp::ZeroExtend:
      case ValueOp::AddConst:
        if (!stack.has(1)) return malformed;
        stack.top() = s.op == ValueOp::AddConst ? stack.top() + s.operand : keep_bits(s, stack.top());
        break;
      case ValueOp::PushTerm:
        if (s.operand >= leaves.size() || !stack.push(leaves[s.operand].value)) return malformed;
        break;
      case ValueOp::Pick:
        if (!stack.has(s.operand + 1) || !stack.push(stack.top(s.operand))) return malformed;
        break;
      case ValueOp::Skip:
        pc += s.operand;
        break;
      case ValueOp::Branch:
      case ValueOp::Present: {
        if (!stack.has(1)) return malformed;
        bool set = stack.pop() != 0;
        if (s.op == ValueOp::Present && !set) return {std::nullopt, nullptr, true};  // absent: no value to finish
        if (s.op == ValueOp::Branch && set) pc += s.operand;
        break;
      }
      case ValueOp::Load: {
        if (!stack.has(2) || s.operand >= leaves.size()) return malformed;
        uint64_t start = stack.pop(), address = stack.pop();
        auto v = load_from_window(leaves[s.operand].bytes, start, address, s.size);
        if (!v) return {std::nullopt, "address outside the fetched window"};
        stack.push(*v);
        break;
      }
      default: {
        if (!stack.has(2)) return malformed;
        uint64_t b = stack.pop(), a = stack.pop();
        auto r = binary(s.op, a, b);
        if (!r) return {std::nullopt, "division by zero"};
        stack.push(*r);
      }
    }
  }
  if (!stack.has(1)) return malformed;
  return {stack.top(), nullptr};
}

unsigned optional_flavor(std::span<const ValueStep> steps) {
  for (const ValueStep &s : steps)
    if (s.op == ValueOp::Present) return static_cast<unsigned>(s.operand);
  return 0;
}

}  // namespace kpp
