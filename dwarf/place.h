// Where a value lives, in terms the kernel's fetch-args can express: a root
// (a register, a global's memory, a constant) followed by loads. dwarf/
// produces these from DWARF location expressions; src/definition formats
// them with an arch::Registers table ("+8(%di)", "@+0x4010", "\\7").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/enumeration.h"
#include "util/value_fixup.h"

namespace kpp::dwarf {

// A value computed by: take the root, then for each load L: value = *(value + L).
struct FetchExpr {
  enum class Root {
    Register,      // the value of DWARF register `dwarf_reg`
    GlobalMemory,  // the memory at link-time address `address` (one load already)
    Constant,      // the number `constant`
    EntryRegister, // the value DWARF register `dwarf_reg` had when the function was entered
                   // (DW_OP_entry_value): read by a companion probe at the entry
    GlobalAddress, // the link-time address `address` itself (a pointer to a global): the
                   // kernel can load through it (the first load folds into @ADDR); as a
                   // value in a uprobe it is the probe's own run-time address plus the
                   // link-time distance (InstructionPointer + post_add)
    InstructionPointer,  // the run-time address of the probe itself (%ip)
  };
  Root root = Root::Register;
  int dwarf_reg = -1;
  uint64_t address = 0;
  int64_t constant = 0;
  std::vector<int64_t> loads;
  // After the loads, for a value DWARF computes (DW_OP_shr, DW_OP_and, a
  // struct member held in part of a register): its bits [bit_offset,
  // bit_offset + bit_width), which the kernel extracts (b<w>@<o>/64); then
  // `post_add`, which kprobe-probe's decoder adds (util/value_fixup.h).
  // Nothing can be loaded through a value with bits taken.
  unsigned bit_offset = 0;
  unsigned bit_width = 64;
  int64_t post_add = 0;
  // A value the decoder computes from several fetched leaves (dwarf/
  // expression.h): `program` runs with this fetch's value as term 0 and
  // `terms` as terms 1.., each fetched as a field of its own, before
  // post_add. A term with `window` > 0 is that many bytes of memory at its
  // address (loads = {0}), fetched as an array the program loads from.
  std::vector<FetchExpr> terms;
  std::vector<ValueStep> program;
  unsigned window = 0;
  bool has_bits() const { return bit_offset != 0 || bit_width < 64; }
  // Whether the decoder computes part of it: nothing loads through such a value.
  bool decoder_computed() const { return has_bits() || !terms.empty() || !program.empty(); }
  bool operator==(const FetchExpr &) const = default;
};

struct Place;

// One part of a variable split into pieces (DW_OP_piece): `size` bytes that
// live in `place`, or nowhere when the compiler dropped them.
struct Piece {
  uint64_t size = 0;
  std::vector<Place> place;  // one element, or none when optimized out (a vector: Place is incomplete here)
  bool operator==(const Piece &) const = default;
};

// Where an object lives.
struct Place {
  enum class Kind {
    Register,  // in DWARF register `dwarf_reg`
    Memory,    // at value(base) + offset, or at link-time address `offset` when !base
    Constant,  // has the known value `constant` (DW_OP_implicit_value/stack_value of a literal)
    Pieces,    // split: `pieces` in order, from byte 0
    Value,     // not stored anywhere: its value is `base` (a register's value on entry, say)
  };
  Kind kind = Kind::Memory;
  int dwarf_reg = -1;
  std::optional<FetchExpr> base;
  int64_t offset = 0;
  int64_t constant = 0;
  std::vector<Piece> pieces;
  std::optional<std::string> text;  // Constant: a known string (a char array's DW_AT_const_value)

  static Place in_register(int reg) { Place p; p.kind = Kind::Register; p.dwarf_reg = reg; return p; }
  static Place at(FetchExpr base, int64_t offset) { Place p; p.base = std::move(base); p.offset = offset; return p; }
  static Place at_address(uint64_t address) { Place p; p.offset = static_cast<int64_t>(address); return p; }
  static Place known(int64_t value) { Place p; p.kind = Kind::Constant; p.constant = value; return p; }
  static Place known_text(std::string t) { Place p; p.kind = Kind::Constant; p.text = std::move(t); return p; }
  static Place value(FetchExpr expr) { Place p; p.kind = Kind::Value; p.base = std::move(expr); return p; }
  bool operator==(const Place &) const = default;
};

// Whether `expr` needs the register values from the function's entry.
inline bool needs_entry_values(const FetchExpr &expr) { return expr.root == FetchExpr::Root::EntryRegister; }

// The value stored in `place`. A split place (Kind::Pieces) must first be
// narrowed with offset_into() or whole().
FetchExpr value_of(const Place &place);
// The place that holds all `size` bytes of a split object, when one piece
// does (a variable split into pieces of which only the first is asked for);
// other places are returned as they are.
std::optional<Place> whole(const Place &place, uint64_t size);
// The object `offset` bytes into the object at `place`: in memory, further
// on; in a register or a computed value, its bits from offset * 8 on (a
// small struct or char array held in a register). nullopt for a constant
// with offset != 0, an offset past 8 bytes of a register, or a piece that
// was optimized out.
std::optional<Place> offset_into(const Place &place, int64_t offset);
// The object a pointer stored at `place` points to, plus `offset`; nullopt
// when the pointer is made of a register's bits (nothing loads through those).
std::optional<Place> pointee(const Place &place, int64_t offset = 0);

// An opaque handle to a DWARF type (its DIE offset; 0 = void).
struct TypeRef {
  uint64_t die_offset = 0;
  // For a multi-dimensional array DIE (int m[3][4]): how many of its
  // dimensions are already indexed, so m[1] is the same DIE with 1 (int[4]).
  unsigned array_dims_indexed = 0;
  bool is_void() const { return die_offset == 0; }
  bool operator==(const TypeRef &) const = default;
};

// A type with typedefs and cv-qualifiers looked through.
struct TypeInfo {
  enum class Kind { Void, Integer, Bool, Char, Float, Enum, Pointer, Struct, Union, Array, Function, Other };
  Kind kind = Kind::Other;
  std::string name;        // as C spells it ("struct item", "unsigned int", "char *")
  uint64_t size = 0;       // bytes
  bool is_signed = false;  // Integer, Char, Enum
  TypeRef target;          // Pointer: pointee; Array: element
  bool is_reference = false;  // Pointer: a C++ reference, whose members '.' reaches
  std::optional<uint64_t> count;  // Array: element count when known
};

using kpp::Enumeration;  // util/enumeration.h

struct Member {
  std::string name;
  int64_t offset = 0;               // bytes from the start of the aggregate
  TypeRef type;
  std::optional<unsigned> bit_size;   // bitfields
  unsigned bit_offset = 0;          // bitfields: bits from `offset`, LSB first
};

// A Rust enum's variants (DW_TAG_variant_part: Option, Result, any enum
// with data): where its discriminant is, and the value of it that selects
// each variant. rustc stores it in a field of its own (Option<i32>'s u32
// at offset 0) or in a niche of the payload (Option<&T>: the pointer, 0
// for None), which DWARF describes the same way.
struct Variant {
  std::string name;                     // "Some", "None"
  std::optional<uint64_t> discr_value;  // nullopt: the default variant (every value the others do not take)
  TypeRef type;                         // the variant's struct (its fields "__0", "__1"...)
  int64_t offset = 0;                   // of that struct in the enum
};
struct VariantPart {
  int64_t discr_offset = 0;
  uint64_t discr_size = 0;  // 1, 2, 4 or 8 bytes
  std::vector<Variant> variants;
};

}  // namespace kpp::dwarf
