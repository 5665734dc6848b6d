// Types: what a value is (integer, pointer, aggregate), how big, how C and
// C++ spell it, and where members sit.
#include <algorithm>
#include <bit>

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

#include "dwarf/query/types.h"

namespace kpp::dwarf {

using namespace llvm;

namespace {

constexpr int max_type_depth = 32;  // bounds walks over corrupt, cyclic type chains

bool is_qualifier(llvm::dwarf::Tag tag) {
  return tag == llvm::dwarf::DW_TAG_typedef || tag == llvm::dwarf::DW_TAG_const_type || tag == llvm::dwarf::DW_TAG_volatile_type ||
         tag == llvm::dwarf::DW_TAG_restrict_type || tag == llvm::dwarf::DW_TAG_atomic_type;
}

DWARFDie strip(DWARFDie type) {
  for (int i = 0; i < max_type_depth && type.isValid() && is_qualifier(type.getTag()); ++i)
    type = type.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_type);
  return type;
}

uint64_t byte_size(const DWARFDie &die) {
  auto size = die.find(llvm::dwarf::DW_AT_byte_size);
  return size ? size->getAsUnsignedConstant().value_or(0) : 0;
}

// The element counts of an array's dimensions, outermost first; nullopt for
// a dimension of unknown size (a flexible array member).
std::vector<std::optional<uint64_t>> array_dims(const DWARFDie &array) {
  std::vector<std::optional<uint64_t>> dims;
  for (const DWARFDie &child : array.children()) {
    if (child.getTag() != llvm::dwarf::DW_TAG_subrange_type) continue;
    std::optional<uint64_t> n;
    if (auto count = child.find(llvm::dwarf::DW_AT_count)) n = count->getAsUnsignedConstant();
    else if (auto upper = child.find(llvm::dwarf::DW_AT_upper_bound))
      if (auto u = upper->getAsUnsignedConstant()) n = *u + 1;
    dims.push_back(n);
  }
  if (dims.empty()) dims.push_back(std::nullopt);
  return dims;
}

}  // namespace

namespace {

bool is_cxx_unit(const DWARFDie &die) {
  DWARFUnit *unit = die.getDwarfUnit();
  if (!unit) return false;
  auto language = unit->getUnitDIE().find(llvm::dwarf::DW_AT_language);
  auto code = language ? language->getAsUnsignedConstant() : std::nullopt;
  return code && *code <= 0xffff && llvm::dwarf::isCPlusPlus(static_cast<llvm::dwarf::SourceLanguage>(*code));
}

// The namespaces and classes around a C++ type: "std::", "shapes::Box::".
std::string cxx_scope_of(const DWARFDie &die) {
  std::string scope;
  int depth = 0;
  for (DWARFDie parent = die.getParent(); parent.isValid() && depth < max_type_depth; parent = parent.getParent(), ++depth) {
    auto tag = parent.getTag();
    if (tag != llvm::dwarf::DW_TAG_namespace && tag != llvm::dwarf::DW_TAG_structure_type &&
        tag != llvm::dwarf::DW_TAG_class_type && tag != llvm::dwarf::DW_TAG_union_type)
      break;
    const char *name = parent.getName(DINameKind::ShortName);
    scope = std::string(name ? name : "(anonymous namespace)") + "::" + scope;
  }
  return scope;
}

bool is_pointer_like(const DWARFDie &die) {
  auto tag = die.getTag();
  return tag == llvm::dwarf::DW_TAG_pointer_type || tag == llvm::dwarf::DW_TAG_reference_type ||
         tag == llvm::dwarf::DW_TAG_rvalue_reference_type;
}

}  // namespace

// As C and C++ spell the type (and gdb prints it): "const char *",
// "char * const", "const char[14]" (a const array is an array of const),
// "const Point &"; C++'s aggregates by their qualified names
// ("std::vector<int, std::allocator<int> >"), C's with their keyword.
std::string Types::type_name(DWARFDie type, int depth) {
  if (!type.isValid()) return "void";
  if (depth > max_type_depth) return "?";
  const char *name = type.getName(DINameKind::ShortName);
  DWARFDie inner = type.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_type);
  auto aggregate = [&](const char *keyword) {
    if (name && is_cxx_unit(type)) return cxx_scope_of(type) + name;
    return std::string(keyword) + (name ? name : "{...}");
  };
  switch (type.getTag()) {
    case llvm::dwarf::DW_TAG_pointer_type: return type_name(inner, depth + 1) + " *";
    case llvm::dwarf::DW_TAG_reference_type: return type_name(inner, depth + 1) + " &";
    case llvm::dwarf::DW_TAG_rvalue_reference_type: return type_name(inner, depth + 1) + " &&";
    case llvm::dwarf::DW_TAG_const_type:
    case llvm::dwarf::DW_TAG_volatile_type: {
      std::string qualifier = type.getTag() == llvm::dwarf::DW_TAG_const_type ? "const" : "volatile";
      if (inner.isValid() && is_pointer_like(inner)) return type_name(inner, depth + 1) + " " + qualifier;
      if (inner.isValid() && inner.getTag() == llvm::dwarf::DW_TAG_array_type) {
        // The qualifier belongs to the elements, which may carry it already.
        std::string element = type_name(inner.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_type), depth + 1);
        if (!element.starts_with(qualifier + " ")) element = qualifier + " " + element;
        std::string dims;
        for (const auto &n : array_dims(inner)) dims += "[" + (n ? std::to_string(*n) : "") + "]";
        return element + dims;
      }
      std::string named = type_name(inner, depth + 1);
      return named.starts_with(qualifier + " ") ? named : qualifier + " " + named;
    }
    case llvm::dwarf::DW_TAG_structure_type: return aggregate("struct ");
    case llvm::dwarf::DW_TAG_class_type: return aggregate("class ");
    case llvm::dwarf::DW_TAG_union_type: return aggregate("union ");
    case llvm::dwarf::DW_TAG_enumeration_type: return aggregate("enum ");
    case llvm::dwarf::DW_TAG_typedef:
      return name ? (is_cxx_unit(type) ? cxx_scope_of(type) + name : std::string(name)) : "?";
    case llvm::dwarf::DW_TAG_array_type: {
      std::string dims;
      for (const auto &n : array_dims(type)) dims += "[" + (n ? std::to_string(*n) : "") + "]";
      return type_name(inner, depth + 1) + dims;
    }
    case llvm::dwarf::DW_TAG_subroutine_type: return "function";
    default: return name ? name : "?";
  }
}

void set_base_type_kind(TypeInfo &info, uint64_t encoding) {
  info.is_signed = false;
  switch (encoding) {
    case llvm::dwarf::DW_ATE_boolean: info.kind = TypeInfo::Kind::Bool; break;
    case llvm::dwarf::DW_ATE_signed_char: info.kind = TypeInfo::Kind::Char; info.is_signed = true; break;
    case llvm::dwarf::DW_ATE_unsigned_char: info.kind = TypeInfo::Kind::Char; break;
    case llvm::dwarf::DW_ATE_signed: info.kind = TypeInfo::Kind::Integer; info.is_signed = true; break;
    case llvm::dwarf::DW_ATE_unsigned: info.kind = TypeInfo::Kind::Integer; break;
    case llvm::dwarf::DW_ATE_float: info.kind = TypeInfo::Kind::Float; break;
    default: info.kind = TypeInfo::Kind::Other; break;
  }
}

TypeInfo Types::describe(TypeRef ref) {
  TypeInfo info;
  if (ref.is_void()) {
    info.kind = TypeInfo::Kind::Void;
    info.name = "void";
    return info;
  }
  DWARFDie named = split_.die_at(ref.die_offset);
  info.name = type_name(named);
  DWARFDie type = strip(named);
  if (!type.isValid()) {
    info.kind = TypeInfo::Kind::Void;
    return info;
  }
  info.size = byte_size(type);
  DWARFDie inner = type.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_type);
  switch (type.getTag()) {
    case llvm::dwarf::DW_TAG_base_type: {
      auto encoding = type.find(llvm::dwarf::DW_AT_encoding);
      set_base_type_kind(info, encoding ? encoding->getAsUnsignedConstant().value_or(0) : 0);
      break;
    }
    case llvm::dwarf::DW_TAG_pointer_type:
    case llvm::dwarf::DW_TAG_reference_type:
    case llvm::dwarf::DW_TAG_rvalue_reference_type:
      info.kind = TypeInfo::Kind::Pointer;
      info.is_reference = type.getTag() != llvm::dwarf::DW_TAG_pointer_type;
      if (info.size == 0) info.size = type.getDwarfUnit()->getAddressByteSize();
      info.target = TypeRef{split_.handle_of(inner)};
      break;
    case llvm::dwarf::DW_TAG_structure_type:
    case llvm::dwarf::DW_TAG_class_type: info.kind = TypeInfo::Kind::Struct; break;
    case llvm::dwarf::DW_TAG_union_type: info.kind = TypeInfo::Kind::Union; break;
    case llvm::dwarf::DW_TAG_enumeration_type:
      info.kind = TypeInfo::Kind::Enum;
      info.is_signed = inner.isValid() && describe(TypeRef{split_.handle_of(inner)}).is_signed;
      break;
    case llvm::dwarf::DW_TAG_array_type: {
      // int m[3][4] is one DIE with two dimensions: m is an array of 3 of
      // "the same DIE with one dimension indexed", an array of 4 ints.
      auto dims = array_dims(type);
      unsigned indexed = std::min<unsigned>(ref.array_dims_indexed, static_cast<unsigned>(dims.size() - 1));
      info.kind = TypeInfo::Kind::Array;
      info.target = indexed + 1 < dims.size() ? TypeRef{ref.die_offset, indexed + 1}
                                              : TypeRef{split_.handle_of(inner)};
      info.count = dims[indexed];
      if (info.count) info.size = *info.count * describe(info.target).size;
      if (indexed > 0) {
        info.name = type_name(inner);
        for (size_t d = indexed; d < dims.size(); ++d) info.name += "[" + (dims[d] ? std::to_string(*dims[d]) : "") + "]";
      }
      break;
    }
    case llvm::dwarf::DW_TAG_subroutine_type: info.kind = TypeInfo::Kind::Function; break;
    default: info.kind = TypeInfo::Kind::Other; break;
  }
  return info;
}

namespace {

// Whether gdb qualifies an enumerator's name with its scope: in C++ and
// Rust (gdb's dwarf2_compute_name), not in C.
bool qualifies_enumerators(const DWARFDie &die) {
  if (is_cxx_unit(die)) return true;
  DWARFUnit *unit = die.getDwarfUnit();
  auto language = unit ? unit->getUnitDIE().find(llvm::dwarf::DW_AT_language) : std::nullopt;
  return language && language->getAsUnsignedConstant() == uint64_t{llvm::dwarf::DW_LANG_Rust};
}

// One enumerator's value as gdb reads it: DW_FORM_sdata as a signed number,
// the other constant forms as unsigned ones cut to the type's bits.
std::optional<int64_t> enumerator_value(const DWARFFormValue &v, uint64_t bits) {
  if (v.getForm() == llvm::dwarf::DW_FORM_sdata || v.getForm() == llvm::dwarf::DW_FORM_implicit_const)
    return v.getAsSignedConstant();
  auto u = v.getAsUnsignedConstant();
  if (!u) return std::nullopt;
  return static_cast<int64_t>(bits >= 64 ? *u : *u & ((uint64_t{1} << bits) - 1));
}

}  // namespace

std::optional<Enumeration> Types::enumeration(TypeRef ref) {
  if (ref.is_void()) return std::nullopt;
  DWARFDie type = strip(split_.die_at(ref.die_offset));
  if (!type.isValid() || type.getTag() != llvm::dwarf::DW_TAG_enumeration_type) return std::nullopt;
  Enumeration e;
  e.size = byte_size(type);
  if (e.size == 0 || e.size > 8) return std::nullopt;
  uint64_t bits = e.size * 8, mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  // gdb's prefix: an enum class's own name, else the scope the enum is in.
  std::string prefix;
  if (qualifies_enumerators(type)) {
    prefix = cxx_scope_of(type);
    const char *name = type.getName(DINameKind::ShortName);
    if (name && type.find(llvm::dwarf::DW_AT_enum_class)) prefix += std::string(name) + "::";
  }
  e.is_flag = true;
  constexpr size_t max_enumerators = 1u << 16;  // bounds a hostile DIE's children
  for (const DWARFDie &child : type.children()) {
    if (child.getTag() != llvm::dwarf::DW_TAG_enumerator) continue;
    auto value = child.find(llvm::dwarf::DW_AT_const_value);
    const char *name = child.getName(DINameKind::ShortName);
    std::optional<int64_t> v = value ? enumerator_value(*value, bits) : std::nullopt;
    if (!v || !name || e.enumerators.size() >= max_enumerators) return std::nullopt;
    if (*v < 0) e.is_signed = true;
    if (*v < 0 || std::popcount(static_cast<uint64_t>(*v)) > 1) e.is_flag = false;
    e.enumerators.push_back({static_cast<uint64_t>(*v) & mask, prefix + name});
  }
  return e;
}

namespace {

// DW_AT_data_member_location as a constant (0 when absent).
int64_t member_location(const DWARFDie &die) {
  auto loc = die.find(llvm::dwarf::DW_AT_data_member_location);
  return loc ? static_cast<int64_t>(loc->getAsUnsignedConstant().value_or(0)) : 0;
}

}  // namespace

// The members of an aggregate include those of its base classes and of its
// anonymous structs and unions, at their offsets. A hostile file can make
// those chains cycle, or fan out (two anonymous members of one struct, at
// each level): the walk is bounded in depth and in DIEs read (found by
// tests/fuzz: a cycle overflowed the stack).
bool Types::walk_members(TypeRef aggregate, const MemberVisit &visit) {
  int dies_left = 10000;
  std::function<bool(TypeRef, int64_t, int)> walk = [&](TypeRef ref, int64_t base, int depth) {
    DWARFDie type = strip(split_.die_at(ref.die_offset));
    if (!type.isValid() || depth > max_type_depth) return false;
    for (const DWARFDie &child : type.children()) {
      if (--dies_left < 0) return false;
      auto tag = child.getTag();
      if (tag != llvm::dwarf::DW_TAG_inheritance && tag != llvm::dwarf::DW_TAG_member) continue;
      bool named = tag == llvm::dwarf::DW_TAG_member && child.getName(DINameKind::ShortName);
      if (named ? visit(child, base) : walk(type_of(child), base + member_location(child), depth + 1)) return true;
    }
    return false;
  };
  return walk(aggregate, 0, 0);
}

std::optional<Member> Types::member(TypeRef aggregate, const std::string &name) {
  std::optional<Member> found;
  walk_members(aggregate, [&](const DWARFDie &child, int64_t base) {
    if (name != child.getName(DINameKind::ShortName)) return false;
    found = member_at(child, name);
    found->offset += base;
    return true;
  });
  return found;
}

std::vector<Member> Types::members_named(TypeRef aggregate, const std::string &name) {
  std::vector<Member> found;
  walk_members(aggregate, [&](const DWARFDie &child, int64_t base) {
    if (name != child.getName(DINameKind::ShortName)) return false;
    found.push_back(member_at(child, name));
    found.back().offset += base;
    return false;
  });
  return found;
}

std::vector<std::string> Types::member_names(TypeRef aggregate) {
  std::vector<std::string> names;
  walk_members(aggregate, [&](const DWARFDie &child, int64_t) {
    names.push_back(child.getName(DINameKind::ShortName));
    return false;
  });
  return names;
}

namespace {

// A DW_TAG_variant's one named member: the variant's struct, as rustc puts it.
DWARFDie variant_member(const DWARFDie &variant) {
  for (const DWARFDie &m : variant.children())
    if (m.getTag() == llvm::dwarf::DW_TAG_member && m.getName(DINameKind::ShortName)) return m;
  return {};
}

}  // namespace

std::optional<VariantPart> Types::variant_part(TypeRef ref) {
  if (ref.is_void()) return std::nullopt;
  DWARFDie type = strip(split_.die_at(ref.die_offset));
  if (!type.isValid() || type.getTag() != llvm::dwarf::DW_TAG_structure_type) return std::nullopt;
  DWARFDie part;
  for (const DWARFDie &child : type.children())
    if (child.getTag() == llvm::dwarf::DW_TAG_variant_part) part = child;
  // Without DW_AT_discr there is one variant, or the discriminant is unknown.
  DWARFDie discr = part.isValid() ? part.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_discr) : DWARFDie();
  if (!discr.isValid()) return std::nullopt;
  VariantPart out;
  out.discr_offset = member_location(discr);
  out.discr_size = describe(type_of(discr)).size;
  if (!std::has_single_bit(out.discr_size) || out.discr_size > 8) return std::nullopt;
  constexpr size_t max_variants = 1u << 16;  // bounds a hostile DIE's children
  for (const DWARFDie &v : part.children()) {
    if (v.getTag() != llvm::dwarf::DW_TAG_variant) continue;
    DWARFDie member = variant_member(v);
    if (v.find(llvm::dwarf::DW_AT_discr_list) || !member.isValid() || out.variants.size() >= max_variants)
      return std::nullopt;
    Variant variant{member.getName(DINameKind::ShortName), std::nullopt, type_of(member), member_location(member)};
    if (auto value = v.find(llvm::dwarf::DW_AT_discr_value)) {
      uint64_t bits = out.discr_size * 8;
      auto d = enumerator_value(*value, bits);
      if (!d) return std::nullopt;
      variant.discr_value = bits >= 64 ? static_cast<uint64_t>(*d) : static_cast<uint64_t>(*d) & ((uint64_t{1} << bits) - 1);
    }
    out.variants.push_back(std::move(variant));
  }
  return out;
}

// Member `name`, the DIE `child` of its aggregate: its type and offset,
// and where a bit field lies in its container.
Member Types::member_at(const DWARFDie &child, const std::string &name) {
  int64_t offset = member_location(child);
  Member m;
  m.name = name;
  m.type = type_of(child);
  m.offset = offset;
  if (auto bits = child.find(llvm::dwarf::DW_AT_bit_size)) {
    uint64_t bit_size = bits->getAsUnsignedConstant().value_or(0);
    uint64_t container = describe(m.type).size;
    // No real container is wider than 16 bytes; a hostile size would make
    // container * 8 wrap to 0 below, a division by zero.
    if (container == 0 || container > 16) container = 4;
    uint64_t first_bit = 0;  // from the start of the aggregate, LSB-first (little endian)
    if (auto data_bit = child.find(llvm::dwarf::DW_AT_data_bit_offset)) {
      first_bit = data_bit->getAsUnsignedConstant().value_or(0);
    } else if (auto old_bit = child.find(llvm::dwarf::DW_AT_bit_offset)) {
      // DWARF 2/3 count from the most significant bit of the storage unit.
      uint64_t unit_bytes = byte_size(child) ? byte_size(child) : container;
      first_bit = offset * 8 + unit_bytes * 8 - old_bit->getAsUnsignedConstant().value_or(0) - bit_size;
    }
    m.offset = static_cast<int64_t>(first_bit / (container * 8) * container);
    m.bit_size = static_cast<unsigned>(bit_size);
    // The remainder, not first_bit - offset * 8: with a hostile bit offset
    // that product overflows (found by tests/fuzz).
    m.bit_offset = static_cast<unsigned>(first_bit % (container * 8));
  }
  return m;
}

TypeRef Types::type_of(DWARFDie die) {
  // Concrete inlined/out-of-line copies carry the type on their abstract
  // origin, C++ method definitions on their declaration (DW_AT_specification).
  DWARFDie type;
  DWARFDie at = die;
  for (int hops = 0; hops < 4 && at.isValid() && !type.isValid(); ++hops) {
    type = at.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_type);
    DWARFDie next = at.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_abstract_origin);
    at = next.isValid() ? next : at.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_specification);
  }
  return TypeRef{split_.handle_of(type)};
}

}  // namespace kpp::dwarf
