// The type questions (DebugInfo's describe(), member(), enumeration(),
// variant_part()): what a value is (integer, pointer, aggregate), how big,
// how C and C++ spell it, where its members sit. Types are named by DIE
// handles (dwarf/source/split_handle.h), which the split units resolve.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFDie.h>

#include "dwarf/debug_info.h"
#include "dwarf/source/split_units.h"

namespace kpp::dwarf {

// The kind and signedness of a DW_TAG_base_type with DW_AT_encoding
// `encoding` (Kind::Other for encodings no fetch type fits).
void set_base_type_kind(TypeInfo &info, uint64_t encoding);

class Types {
 public:
  explicit Types(SplitUnits &split) : split_(split) {}  // outlives this

  TypeInfo describe(TypeRef type);
  std::optional<Enumeration> enumeration(TypeRef type);
  std::optional<VariantPart> variant_part(TypeRef type);
  std::optional<Member> member(TypeRef aggregate, const std::string &name);
  std::vector<Member> members_named(TypeRef aggregate, const std::string &name);
  std::vector<std::string> member_names(TypeRef aggregate);
  // The type of a variable, parameter or function DIE, through its abstract
  // origin or declaration.
  TypeRef type_of(llvm::DWARFDie die);

 private:
  // Calls `visit` on each named member of an aggregate, with the offset of
  // the aggregate (base class, anonymous member) that holds it, until it
  // returns true (then so does this).
  using MemberVisit = std::function<bool(const llvm::DWARFDie &member, int64_t base)>;
  bool walk_members(TypeRef aggregate, const MemberVisit &visit);
  Member member_at(const llvm::DWARFDie &member, const std::string &name);
  std::string type_name(llvm::DWARFDie type, int depth = 0);

  SplitUnits &split_;
};

}  // namespace kpp::dwarf
