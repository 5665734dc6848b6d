// A function's return type from the raw DWARF of its one unit, for
// FUNC%return $retval: .debug_aranges gives the unit, a walk of it the
// subprogram, and its type chain is decoded DIE by DIE. LLVM would first
// read every unit header of the file and then every DIE of the unit
// (~15 ms of a ~20 ms lookup on a vmlinux).
#include <llvm/BinaryFormat/Dwarf.h>

#include "dwarf/query/llvm_debug_info.h"
#include "dwarf/raw/raw_aranges.h"
#include "dwarf/raw/raw_unit.h"
#include "dwarf/source/split_handle.h"

namespace kpp::dwarf {

namespace {

constexpr int kMaxChain = 32;  // bounds walks over corrupt, cyclic type chains

bool is_qualifier(uint16_t tag) {
  return tag == llvm::dwarf::DW_TAG_typedef || tag == llvm::dwarf::DW_TAG_const_type ||
         tag == llvm::dwarf::DW_TAG_volatile_type || tag == llvm::dwarf::DW_TAG_restrict_type ||
         tag == llvm::dwarf::DW_TAG_atomic_type;
}

// The scalar the chain at `type` ends in, as describe() would give it;
// nullopt for anything else.
std::optional<TypeInfo> describe_raw(const RawUnit &unit, std::optional<uint64_t> type, int depth = 0) {
  TypeInfo info;
  for (int i = 0; i < kMaxChain && type; ++i) {
    auto die = unit.die_at(*type);
    if (!die) return std::nullopt;
    if (is_qualifier(die->tag)) {
      type = die->type;
      continue;
    }
    info.size = die->byte_size.value_or(0);
    switch (die->tag) {
      case llvm::dwarf::DW_TAG_base_type:
        set_base_type_kind(info, die->encoding.value_or(0));
        if (info.kind == TypeInfo::Kind::Other) return std::nullopt;
        return info;
      case llvm::dwarf::DW_TAG_pointer_type:
      case llvm::dwarf::DW_TAG_reference_type:
      case llvm::dwarf::DW_TAG_rvalue_reference_type:
        info.kind = TypeInfo::Kind::Pointer;
        info.is_reference = die->tag != llvm::dwarf::DW_TAG_pointer_type;
        if (info.size == 0) info.size = unit.address_size();
        return info;  // (no target: a $retval is fetched as the pointer itself)
      case llvm::dwarf::DW_TAG_enumeration_type: {
        info.kind = TypeInfo::Kind::Enum;
        if (die->type) {
          if (depth > 2) return std::nullopt;
          auto underlying = describe_raw(unit, die->type, depth + 1);
          if (!underlying) return std::nullopt;
          info.is_signed = underlying->is_signed;
        }
        return info;
      }
      default:
        return std::nullopt;  // an aggregate or stranger: describe() names it
    }
  }
  if (type) return std::nullopt;  // a chain too long to be real
  info.kind = TypeInfo::Kind::Void;  // no type, or qualifiers of nothing
  info.name = "void";
  return info;
}

}  // namespace

std::optional<TypeInfo> LlvmDebugInfo::scalar_return_type(const Function &fn) {
  const llvm::object::ObjectFile &obj = image_.object();
  if (obj.isRelocatableObject() || !obj.isLittleEndian() || is_split_handle(fn.die_offset)) return std::nullopt;
  DwarfBytes bytes = files_.raw_dwarf();
  llvm::StringRef aranges = files_.context().getDWARFObj().getArangesSection();
  auto unit_offset = unit_at_address(std::string_view(aranges.data(), aranges.size()), fn.entry);
  if (!unit_offset) return std::nullopt;
  auto unit = RawUnit::open(bytes, *unit_offset);
  if (!unit) return std::nullopt;
  std::optional<uint64_t> die = fn.die_offset ? std::optional<uint64_t>(fn.die_offset) : unit->subprogram_at(fn.entry);
  if (!die) return std::nullopt;
  // A concrete copy carries its type on its abstract origin, a C++
  // method's definition on its declaration, as type_of() follows them.
  std::optional<uint64_t> type;
  for (int hops = 0; hops < 4 && die && !type; ++hops) {
    auto raw = unit->die_at(*die);
    if (!raw) return std::nullopt;
    type = raw->type;
    die = raw->origin;
  }
  return describe_raw(*unit, type);
}

}  // namespace kpp::dwarf
