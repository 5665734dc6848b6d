#include "src/definition/known_objects.h"

#include <algorithm>

namespace kpp {

namespace {

using dwarf::TypeInfo;
using dwarf::TypeRef;

// The type at the end of `path` from `type` (members of structs), or nullopt.
std::optional<TypeRef> member_type(dwarf::DebugInfo &debug, TypeRef type, const std::vector<std::string> &path) {
  for (const std::string &name : path) {
    TypeInfo t = debug.describe(type);
    if (t.kind != TypeInfo::Kind::Struct) return std::nullopt;
    auto m = debug.member(type, name);
    if (!m) return std::nullopt;
    type = m->type;
  }
  return type;
}

bool has_members(dwarf::DebugInfo &debug, TypeRef type, std::initializer_list<const char *> names) {
  std::vector<std::string> all = debug.member_names(type);
  return std::all_of(names.begin(), names.end(),
                     [&](const char *n) { return std::find(all.begin(), all.end(), n) != all.end(); });
}

// The size of what the pointer at the end of `path` points to; 0 when it is no pointer.
uint64_t pointee_size(dwarf::DebugInfo &debug, TypeRef type, const std::vector<std::string> &path) {
  auto pointer = member_type(debug, type, path);
  if (!pointer) return 0;
  TypeInfo p = debug.describe(*pointer);
  if (p.kind != TypeInfo::Kind::Pointer || p.is_reference) return 0;
  return debug.describe(p.target).size;
}

// Rust wraps a Vec's pointer in RawVec, Unique and NonNull (their depth
// differs between releases): the path from `buf` down to the raw pointer.
std::optional<std::vector<std::string>> rust_buffer_pointer(dwarf::DebugInfo &debug, TypeRef vec) {
  std::vector<std::string> path{"buf", "ptr"};
  for (int depth = 0; depth < 4; ++depth) {
    auto t = member_type(debug, vec, path);
    if (!t) return std::nullopt;
    TypeInfo info = debug.describe(*t);
    if (info.kind == TypeInfo::Kind::Pointer) return path;
    if (info.kind != TypeInfo::Kind::Struct) return std::nullopt;
    path.push_back("pointer");
  }
  return std::nullopt;
}

CountedLayout layout(CountedLayout::Shape shape, std::string what, std::vector<std::string> data,
                     std::vector<std::string> length, std::vector<std::string> end = {}) {
  return CountedLayout{shape, std::move(what), std::move(data), std::move(length), std::move(end)};
}

// Text when its elements are single bytes (char, u8), else a sequence.
CountedLayout::Shape shape_of(dwarf::DebugInfo &debug, TypeRef type, const std::vector<std::string> &data, bool text) {
  return text && pointee_size(debug, type, data) == 1 ? CountedLayout::Shape::Text : CountedLayout::Shape::Items;
}

std::optional<CountedLayout> rust_layout(dwarf::DebugInfo &debug, TypeRef type, const std::string &name) {
  if (has_members(debug, type, {"data_ptr", "length"})) {  // &str, &[T]
    bool text = name == "&str" || name == "&mut str";
    return layout(shape_of(debug, type, {"data_ptr"}, text), text ? "a Rust &str" : "a Rust slice", {"data_ptr"},
                  {"length"});
  }
  if (has_members(debug, type, {"buf", "len"})) {  // Vec<T>
    auto data = rust_buffer_pointer(debug, type);
    if (!data || !pointee_size(debug, type, *data)) return std::nullopt;
    return layout(CountedLayout::Shape::Items, "a Rust Vec", *data, {"len"});
  }
  if (has_members(debug, type, {"vec"}) && (name == "String" || name == "alloc::string::String")) {
    auto vec = member_type(debug, type, {"vec"});
    auto data = vec ? rust_buffer_pointer(debug, *vec) : std::nullopt;
    if (!data) return std::nullopt;
    data->insert(data->begin(), "vec");
    if (pointee_size(debug, type, *data) != 1) return std::nullopt;
    return layout(CountedLayout::Shape::Text, "a Rust String", *data, {"vec", "len"});
  }
  return std::nullopt;
}

std::optional<CountedLayout> cxx_layout(dwarf::DebugInfo &debug, TypeRef type) {
  if (has_members(debug, type, {"_M_dataplus", "_M_string_length"}))  // libstdc++'s basic_string
    return layout(shape_of(debug, type, {"_M_dataplus", "_M_p"}, true), "a std::string", {"_M_dataplus", "_M_p"},
                  {"_M_string_length"});
  if (has_members(debug, type, {"_M_len", "_M_str"}))  // basic_string_view
    return layout(shape_of(debug, type, {"_M_str"}, true), "a std::string_view", {"_M_str"}, {"_M_len"});
  if (has_members(debug, type, {"_M_impl"})) {  // std::vector's _Vector_impl
    std::vector<std::string> start{"_M_impl", "_M_start"}, finish{"_M_impl", "_M_finish"};
    if (!pointee_size(debug, type, start) || !member_type(debug, type, finish)) return std::nullopt;
    return layout(CountedLayout::Shape::Items, "a std::vector", start, {}, finish);
  }
  return std::nullopt;
}

// The member on `path` from `type`, its offset summed; the last step takes
// the first member of that name that is a pointer (std::tuple holds its
// deleter and its pointer each in a base named _M_head_impl).
std::optional<InnerMember> pointer_member(dwarf::DebugInfo &debug, TypeRef type, const std::vector<std::string> &path) {
  int64_t offset = 0;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    auto m = debug.member(type, path[i]);
    if (!m) return std::nullopt;
    offset += m->offset;
    type = m->type;
  }
  for (const dwarf::Member &m : debug.members_named(type, path.back())) {
    TypeInfo t = debug.describe(m.type);
    if (t.kind == TypeInfo::Kind::Pointer && !t.is_reference && !m.bit_size)
      return InnerMember{InnerMember::Kind::Pointer, offset + m.offset, m.type};
  }
  return std::nullopt;
}

// The contained value of a std::optional (libstdc++: _Optional_base's
// _M_payload holds a union _M_payload with _M_value, and _M_engaged).
Result<OptionalLayout> cxx_optional(dwarf::DebugInfo &debug, TypeRef type) {
  auto payload = debug.member(type, "_M_payload");
  auto storage = payload ? debug.member(payload->type, "_M_payload") : std::nullopt;
  auto value = storage ? debug.member(storage->type, "_M_value") : std::nullopt;
  auto engaged = payload ? debug.member(payload->type, "_M_engaged") : std::nullopt;
  if (!value || !engaged || engaged->bit_size || debug.describe(engaged->type).size != 1)
    return Error("std::optional's members are not libstdc++'s (_M_payload._M_payload._M_value, _M_engaged)");
  OptionalLayout out;
  out.value_offset = payload->offset + storage->offset + value->offset;
  out.value_type = value->type;
  out.flag_offset = payload->offset + engaged->offset;
  return out;
}

// Rust's Option<T>: its variants None and Some(__0), by the discriminant.
Result<OptionalLayout> rust_option(dwarf::DebugInfo &debug, TypeRef type) {
  auto part = debug.variant_part(type);
  if (!part) return Error("its variants are not described as rustc describes Option's (DW_TAG_variant_part with one discriminant value each)");
  const dwarf::Variant *some = nullptr, *none = nullptr;
  for (const dwarf::Variant &v : part->variants) {
    if (v.name == "Some") some = &v;
    if (v.name == "None") none = &v;
  }
  auto value = some ? debug.member(some->type, "__0") : std::nullopt;
  if (!some || !none || part->variants.size() != 2 || !value)
    return Error("it does not have the two variants None and Some(__0)");
  OptionalLayout out;
  out.flavor = OptionalLayout::Flavor::Rust;
  out.value_offset = some->offset + value->offset;
  out.value_type = value->type;
  out.flag_offset = part->discr_offset;
  out.flag_size = part->discr_size;
  if (some->discr_value) {
    out.flag_value = *some->discr_value;
    out.present_when_equal = true;
  } else if (none->discr_value) {
    out.flag_value = *none->discr_value;
  } else {
    return Error("neither None nor Some has a discriminant value");
  }
  return out;
}

// An optional value; an error when its layout is not understood.
std::optional<Result<OptionalLayout>> optional_layout(dwarf::DebugInfo &debug, TypeRef type) {
  TypeInfo t = debug.describe(type);
  if (t.kind != TypeInfo::Kind::Struct) return std::nullopt;
  std::string_view name = t.name;
  for (std::string_view prefix : {"const ", "volatile ", "struct "})  // the name keeps the qualifiers
    if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
  if (name.starts_with("std::optional<")) return cxx_optional(debug, type);
  if (name.starts_with("core::option::Option<") || name.starts_with("Option<")) return rust_option(debug, type);
  return std::nullopt;
}

// A smart pointer (std::unique_ptr, std::shared_ptr): its raw pointer.
std::optional<InnerMember> smart_pointer(dwarf::DebugInfo &debug, TypeRef type) {
  TypeInfo t = debug.describe(type);
  if (t.kind != TypeInfo::Kind::Struct) return std::nullopt;
  if (has_members(debug, type, {"_M_ptr", "_M_refcount"})) return pointer_member(debug, type, {"_M_ptr"});  // shared_ptr
  if (t.name.find("unique_ptr<") != std::string::npos) return pointer_member(debug, type, {"_M_t", "_M_t", "_M_head_impl"});
  return std::nullopt;
}

// std::array<T, N>'s elements (nullopt for std::array<T, 0>, whose member
// is an empty struct, not an array).
std::optional<InnerMember> wrapped_array(dwarf::DebugInfo &debug, TypeRef type) {
  TypeInfo t = debug.describe(type);
  // Named as the type's DIE names it; a const or volatile one has the word before.
  if (t.kind != TypeInfo::Kind::Struct || t.name.find("std::array<") == std::string::npos) return std::nullopt;
  auto elems = debug.member(type, "_M_elems");
  if (!elems || elems->bit_size || debug.describe(elems->type).kind != TypeInfo::Kind::Array) return std::nullopt;
  return InnerMember{InnerMember::Kind::Elements, elems->offset, elems->type};
}

// A counted string or sequence.
std::optional<CountedLayout> counted_layout(dwarf::DebugInfo &debug, TypeRef type) {
  TypeInfo t = debug.describe(type);
  if (t.kind != TypeInfo::Kind::Struct) return std::nullopt;
  // Go's and Rust's aggregates are named as C's are ("struct string").
  if (t.name.starts_with("struct ")) t.name.erase(0, 7);
  // Go: the runtime's string and slice headers, as cmd/compile names them.
  if (t.name == "string" && has_members(debug, type, {"str", "len"}))
    return layout(CountedLayout::Shape::Text, "a Go string", {"str"}, {"len"});
  if (t.name.starts_with("[]") && has_members(debug, type, {"array", "len", "cap"}))
    return layout(CountedLayout::Shape::Items, "a Go slice", {"array"}, {"len"});
  if (auto rust = rust_layout(debug, type, t.name)) return rust;
  return cxx_layout(debug, type);
}

}  // namespace

std::optional<KnownObject> recognise(dwarf::DebugInfo &debug, TypeRef type) {
  if (debug.describe(type).kind != TypeInfo::Kind::Struct) return std::nullopt;
  if (auto counted = counted_layout(debug, type)) return KnownObject{std::move(*counted)};
  if (auto optional = optional_layout(debug, type)) return KnownObject{std::move(*optional)};
  if (auto elements = wrapped_array(debug, type)) return KnownObject{*elements};
  if (auto pointer = smart_pointer(debug, type)) return KnownObject{*pointer};
  return std::nullopt;
}

}  // namespace kpp
