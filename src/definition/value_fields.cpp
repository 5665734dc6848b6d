// How a resolved value's fields are typed, named and finished (value_fields.h).
#include "src/definition/value_fields.h"

#include <algorithm>

namespace kpp::arg_resolution {

namespace {

// The kernel's MAX_ARG_NAME_LEN: a longer field name is refused.
constexpr size_t max_field_name = 32;

}  // namespace

Result<std::vector<FetchArg>> named_fields(const std::string &name, FetchArg primary, std::vector<FetchArg> terms) {
  std::vector<ValueStep> program = std::move(primary.fixup.steps);
  primary.fixup.steps.clear();
  size_t next = 0;
  for (FetchArg &t : terms) {
    size_t used = field_name_with_fixup(name, t.fixup).size();
    for (; next < program.size(); ++next) {
      size_t step = step_text(program[next]).size();
      if (used + step > max_field_name) break;
      t.fixup.steps.push_back(program[next]);
      used += step;
    }
  }
  primary.fixup.steps.assign(program.begin() + static_cast<std::ptrdiff_t>(next), program.end());
  std::vector<FetchArg> out{std::move(primary)};
  for (FetchArg &t : terms) out.push_back(std::move(t));
  // An enum's names are a nicety the field may have no room for: its number stays.
  if (field_name_with_fixup(name, out.front().fixup).size() > max_field_name && !out.front().fixup.steps.empty() &&
      out.front().fixup.steps.back().op == ValueOp::ShowEnum)
    out.front().fixup.steps.pop_back();
  for (FetchArg &f : out) {
    f.name = name;
    if (std::string field = field_name_with_fixup(name, f.fixup); field.size() > max_field_name)
      return Error("the field name '" + field + "' (the decoder's step included) is longer than the kernel's " +
                   std::to_string(max_field_name) + " bytes");
  }
  return out;
}

void add_display(const TypeInfo &t, dwarf::TypeRef type, bool names_enums, FetchArg &arg) {
  if (t.kind == TypeInfo::Kind::Float) {
    arg.type = t.size == 4 ? "u32" : "u64";
    arg.fixup.steps.push_back({ValueOp::ShowFloat, t.size});
  } else if (t.kind == TypeInfo::Kind::Bool) {
    arg.fixup.steps.push_back({ValueOp::ShowBool});
  } else if (t.kind == TypeInfo::Kind::Char && t.size == 1) {
    arg.fixup.steps.push_back({ValueOp::ShowChar});
  } else if (names_enums && t.kind == TypeInfo::Kind::Enum && !type.is_void() && type.array_dims_indexed == 0) {
    arg.fixup.steps.push_back({ValueOp::ShowEnum, type.die_offset});
  }
}

Result<std::string> leaf_type(const dwarf::FetchExpr &leaf, bool pointer, bool is_signed) {
  if (leaf.window) return "u64[" + std::to_string(leaf.window / 8) + "]";
  if (!leaf.has_bits()) return std::string(pointer ? "x64" : is_signed ? "s64" : "u64");
  if (leaf.bit_offset == 0 && (leaf.bit_width == 8 || leaf.bit_width == 16 || leaf.bit_width == 32))
    return "u" + std::to_string(leaf.bit_width);
  return "b" + std::to_string(leaf.bit_width) + "@" + std::to_string(leaf.bit_offset) + "/64";
}

Result<std::string> bits_type(const TypeInfo &t, const dwarf::FetchExpr &expr, const std::string &what) {
  bool integral = t.kind == TypeInfo::Kind::Integer || t.kind == TypeInfo::Kind::Char ||
                  t.kind == TypeInfo::Kind::Bool || t.kind == TypeInfo::Kind::Enum || t.kind == TypeInfo::Kind::Pointer;
  if (!integral || t.size == 0 || t.size > 8)
    return Error("'" + what + "' is " + t.name + ", held in some of a register's bits, which the kernel cannot fetch as one");
  unsigned width = std::min<unsigned>(expr.bit_width, static_cast<unsigned>(t.size * 8));
  // The whole of a value, to be summed with terms: unsigned, and wrapped to
  // the type's width by the decoder afterwards.
  if (!expr.has_bits()) return std::string(t.kind == TypeInfo::Kind::Pointer ? "x64" : "u64");
  // The low 8, 16 or 32 bits are a plain unsigned fetch of that size.
  if (expr.bit_offset == 0 && (width == 8 || width == 16 || width == 32)) return "u" + std::to_string(width);
  return "b" + std::to_string(width) + "@" + std::to_string(expr.bit_offset) + "/64";
}

ValueFixup fixup_for(const TypeInfo &t, const dwarf::FetchExpr &expr,
                     const std::optional<dwarf::Member> &bitfield) {
  ValueFixup fixup;
  fixup.steps = expr.program;
  if (expr.post_add) fixup.steps.push_back({ValueOp::AddConst, static_cast<uint64_t>(expr.post_add)});
  unsigned bits = static_cast<unsigned>(std::min<uint64_t>(t.size * 8, 64));
  if (bitfield && bitfield->bit_size) bits = *bitfield->bit_size;
  else if (expr.has_bits() && expr.program.empty()) bits = std::min(bits, expr.bit_width);
  bool narrowed = bitfield || expr.has_bits() || !expr.program.empty();
  std::optional<ValueStep> keep;
  if (t.is_signed && bits < 64 && (narrowed || expr.post_add != 0)) keep = ValueStep{ValueOp::SignExtend, bits};
  else if (!t.is_signed && bits < 64 && (expr.post_add != 0 || !expr.program.empty()))
    keep = ValueStep{ValueOp::ZeroExtend, bits};
  if (!keep && t.is_signed && bits == 64 && expr.has_bits() && !expr.program.empty())
    keep = ValueStep{ValueOp::SignExtend, 64};  // shown signed: the primary's own fetch is not
  if (keep && (fixup.steps.empty() || fixup.steps.back() != *keep)) fixup.steps.push_back(*keep);
  return fixup;
}

}  // namespace kpp::arg_resolution
