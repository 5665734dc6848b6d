// Inlined copies read raw (dwarf/raw_inlined_copy.h) and made Functions as
// function_from_die() makes them from LLVM's DIEs. A copy's own DIE says
// where its code is and which function's frame it runs in; its name and
// declaration are its abstract origin's, which LLVM reads once for all the
// copies of a function.
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>

#include "dwarf/die_links.h"
#include "dwarf/llvm_debug_info.h"
#include "dwarf/raw_inlined_copy.h"
#include "dwarf/split_handle.h"

namespace kpp::dwarf {

const RawUnit *LlvmDebugInfo::raw_unit_holding(uint64_t offset) {
  llvm::DWARFCompileUnit *unit = unit_dwarf().getCompileUnitForOffset(offset);
  if (!unit) return nullptr;
  auto [at, made] = raw_units_.try_emplace(unit->getOffset());
  if (made) at->second = RawUnit::open(raw_dwarf(), unit->getOffset());
  return at->second ? &*at->second : nullptr;
}

std::optional<LlvmDebugInfo::CopyReadRaw> LlvmDebugInfo::copy_read_raw(uint64_t offset, OriginCache &origins) {
  const llvm::object::ObjectFile &obj = image_.object();
  if (obj.isRelocatableObject() || !obj.isLittleEndian() || is_split_handle(offset)) return std::nullopt;
  // A copy whose origin is in its own unit (no LTO: a static inline of a
  // header in each unit that calls it): LLVM reads that unit's DIEs for the
  // origin anyway, and reading the copy raw first would only add to it
  // (glibc's 88 copies of _IO_acquire_lock_fct: +12% instructions). Its
  // origin is read without the unit's whole abbreviation table.
  llvm::DWARFCompileUnit *holder = unit_dwarf().getCompileUnitForOffset(offset);
  if (!holder) return std::nullopt;
  DwarfBytes bytes = raw_dwarf();
  auto header = raw::read_unit_header(bytes, holder->getOffset());
  if (!header) return std::nullopt;
  std::optional<uint64_t> link;
  find_attribute(*header, offset, raw::AT_abstract_origin,
                 [&](raw::Cursor &c, uint16_t form) { link = raw::reference(c, form, *header); });
  if (!link || (*link >= header->offset && *link < header->end)) return std::nullopt;
  const RawUnit *unit = raw_unit_holding(offset);
  if (!unit) return std::nullopt;
  auto copy = read_inlined_copy(*unit, offset);
  if (!copy) return std::nullopt;
  // What LLVM reads of the copy through its origin, once per origin.
  auto [facts, made] = origins.try_emplace(copy->origin);
  if (made) {
    llvm::DWARFDie origin = die_at(copy->origin);
    if (origin.isValid() && !origin.isNULL()) {
      OriginFacts &f = facts->second;
      f.valid = true;
      const char *name = origin.getName(llvm::DINameKind::ShortName);
      const char *linkage = origin.getName(llvm::DINameKind::LinkageName);
      f.name = name ? name : "";
      f.linkage_name = linkage ? linkage : "";
      f.decl_file = source_file_of(origin, llvm::dwarf::DW_AT_decl_file);
      f.decl_line = static_cast<int>(origin.getDeclLine());
      f.root = handle_of(origin_root(origin));
    }
  }
  const OriginFacts &origin = facts->second;
  if (!origin.valid) return std::nullopt;
  CopyReadRaw out;
  Function &fn = out.function;
  fn.name = origin.name;
  fn.decl_file = origin.decl_file;
  fn.decl_line = origin.decl_line;
  fn.entry = copy->entry;
  fn.frame_entry = copy->body_entry.value_or(copy->entry);
  for (const AddressRange &r : copy->ranges) fn.ranges.push_back(r);
  fn.die_offset = offset;
  fn.inlined = true;
  fn.optimized = copy->optimized;
  out.linkage_name = origin.linkage_name;
  // Inlined into the very function whose body holds it: that body's
  // links lead to the copy's root (die_links.h's inlined_into_itself).
  if (copy->body) {
    constexpr int max_links = 16;
    std::optional<uint64_t> at = copy->body;
    for (int links = 0; at && links <= max_links; ++links) {
      if (*at == origin.root) {
        out.inlined_into_itself = true;
        break;
      }
      const RawUnit *holder = links == 0 ? unit : raw_unit_holding(*at);
      std::optional<uint64_t> next = links == 0 ? copy->body_link : holder ? raw_origin_link(*holder, *at) : std::nullopt;
      at = next == at ? std::nullopt : next;
    }
  }
  return out;
}

}  // namespace kpp::dwarf
