// ValueFixup: arithmetic on fetched values that kernel fetch-args cannot do,
// done by kprobe-probe's decoder instead. The kernel reads registers and
// memory and takes bitfields (unsigned only); it cannot add, multiply,
// compare or load through an address it did not compute itself. Where DWARF
// asks for more (a signed 5-bit member, "rbx minus 1", "(x * 3) ^ y", the
// run-time address of a global in a PIE, a stack slot indexed by a
// register), the definition fetches the leaves and a small stack program,
// run by the decoder over them, finishes the value.
//
// The program travels in the fields' names, so that it survives wherever
// the definition goes (uprobe_events, --list, trace.dat) and needs no state
// of ours. A value is one field (the primary) plus, when it needs more
// leaves, term fields after it:
//   NAME__k<code>          the primary: its raw value starts the stack
//   NAME__k<N><code>       term N (1..99) of the field before it: fetched,
//                          not shown; its code runs before the primary's
//   NAME__kt<N>, __kn<N>   term N pushed and added / subtracted (the first form)
// The program is the terms' codes in field order, then the primary's; the
// value is the top of the stack. <code> is a run of steps:
//   p<hex> m<hex>  add / subtract a constant     k<hex>  push a constant
//   s<bits> u<bits> keep the low bits, signed / unsigned
//   r<N>  push term N's value (r0: the primary's)    v<N>  pick: copy the N-th from the top
//   i<N>  skip the next N steps     w<N>  pop; when not zero skip the next N steps
//   x<S><N>  pop the address term N's bytes start at, then an address; push the
//            S (1, 2, 4, 8) bytes there, read from term N's fetched bytes (a window)
//   A S M D V  add sub mul div (signed) mod (unsigned)   B O X  and or xor
//   L R H  shl shr shra   N T Z  neg not abs   E F C G I J  == != < > <= >= (signed)
//   K P W Q U  dup drop swap over rot
//   a<N>  pop; when it is 0 the value is absent and the program stops there
//         (an optional value: N says how it is shown, 1 std::optional, 2 Rust's
//         Option; present, the rest of the program finishes the contained value)
// The last step may say how the value is shown rather than compute it
// (the kernel has no floating-point or counted types; the decoder finishes
// them, see the manual's VALUES):
//   g<bytes>  the bits are an IEEE float of 4 or 8 bytes (float, double, f32, f64);
//             g10: the primary's 10 fetched bytes are an x87 long double
//   y         the primary's fetched bytes are text of the length on top of the
//             stack (a counted string: Go string, Rust &str, std::string)
//   z         the primary's fetched elements are a sequence of the length on
//             top of the stack (a slice, Vec, std::vector): the first ones
//   l         the primary's fetched bytes are a C char array of the length on
//             top of the stack, shown as text without the NULs that end it
//             (gdb shows every byte, those NULs as '\000' <repeats N times>);
//             a NUL inside it is shown, as gdb shows it
//   o         a bool: false, true (another number as itself, as gdb shows it)
//   h         a char: its code and the character, 120 'x'
//   q<hex>    an enumeration: the number, named by the enumerators of the type
//             whose DIE handle (dwarf/place.h TypeRef) is <hex> in the probed
//             file's DWARF (the names are looked up when the events are shown:
//             src/stream/event_enums.h; the number stays the field's value)
// Hex digits are lowercase, so a step letter ends a constant ("level__km1s32":
// level minus 1 as a signed 32-bit value).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kpp {

enum class ValueOp : uint8_t {
  AddConst, PushConst, SignExtend, ZeroExtend, PushTerm, Pick, Skip, Branch, Load,
  Add, Sub, Mul, Div, Mod, And, Or, Xor, Shl, Shr, Shra, Neg, Not, Abs,
  Eq, Ne, Lt, Gt, Le, Ge, Dup, Drop, Swap, Over, Rot,
  Present,  // a<N>: pops the flag of an optional value (see above)
  ShowFloat, ShowText, ShowCharArray, ShowItems, ShowBool, ShowChar, ShowEnum,  // how the value is shown (see above): no-ops on the stack
};

// Whether `op` says how a value is shown rather than computing it.
inline bool is_display_op(ValueOp op) {
  return op == ValueOp::ShowFloat || op == ValueOp::ShowText || op == ValueOp::ShowCharArray ||
         op == ValueOp::ShowItems || op == ValueOp::ShowBool || op == ValueOp::ShowChar || op == ValueOp::ShowEnum;
}

struct ValueStep {
  ValueOp op = ValueOp::Add;
  uint64_t operand = 0;  // the constant, bits, term, pick depth or step count
  unsigned size = 0;     // Load: bytes
  bool operator==(const ValueStep &) const = default;
};

// One field's part of a program (see above).
struct ValueFixup {
  unsigned term = 0;  // this field is term N of the field before it (0: a value of its own)
  std::vector<ValueStep> steps;

  bool empty() const { return term == 0 && steps.empty(); }
  bool operator==(const ValueFixup &) const = default;

  // The usual steps, for callers that build one: add, then keep bits.
  static ValueFixup add_and_keep(int64_t add, unsigned sign_bits, unsigned zero_bits);
  // The fixed value of a field without terms (a program that needs none);
  // nullopt when the program fails (see run_value_program).
  std::optional<uint64_t> apply(uint64_t raw) const;
};

// The text of one step, as in a field name ("p2ed0", "M", "x82").
std::string step_text(const ValueStep &step);
// "name" plus the fixup's suffix; just "name" for an empty fixup.
std::string field_name_with_fixup(std::string_view name, const ValueFixup &fixup);

struct NamedFixup {
  std::string name;
  ValueFixup fixup;
};
// The plain name and the fixup of a field name; a name without a well-formed
// suffix is returned whole with an empty fixup.
NamedFixup split_fixup(std::string_view field_name);

// What a program reads: each term's value (index 0 the primary's), and for
// a window term the bytes it fetched (empty otherwise).
struct ProgramLeaf {
  uint64_t value = 0;
  std::span<const uint8_t> bytes;
};

struct ProgramResult {
  std::optional<uint64_t> value;
  const char *why = nullptr;  // when !value: "division by zero", "address outside the fetched window"...
  bool absent = false;        // when !value: an optional value that is not there (a<N>), not an error
};

// How an optional value is shown (the N of its a<N> step), 0 when the
// program has none.
unsigned optional_flavor(std::span<const ValueStep> steps);

// Runs `steps` (the terms' and the primary's, in order) with the primary's
// raw value on the stack. Bounded: jumps only go forward, the stack holds 64.
ProgramResult run_value_program(std::span<const ValueStep> steps, std::span<const ProgramLeaf> leaves);

}  // namespace kpp
