// Inlined copies read raw (dwarf/raw/raw_inlined_copy.h) and made Functions as
// LlvmDebugInfo's function_from_die() makes them from LLVM's DIEs.
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>

#include "dwarf/query/die_links.h"
#include "dwarf/query/inlined_copies.h"
#include "dwarf/raw/raw_inlined_copy.h"
#include "dwarf/source/split_handle.h"

namespace kpp::dwarf {

const RawUnit *InlinedCopies::raw_unit_holding(uint64_t offset) {
  llvm::DWARFCompileUnit *unit = checks_.unit_dwarf().getCompileUnitForOffset(offset);
  if (!unit) return nullptr;
  auto [at, made] = raw_units_.try_emplace(unit->getOffset());
  if (made) at->second = RawUnit::open(files_.raw_dwarf(), unit->getOffset());
  return at->second ? &*at->second : nullptr;
}

// Whether the copy at `offset` names an origin in another unit (LTO). One
// in its own unit (no LTO: a static inline of a header in each unit that
// calls it) is LLVM's to read: LLVM reads that unit's DIEs for the origin
// anyway, and reading the copy raw first would only add to it (glibc's 88
// copies of _IO_acquire_lock_fct: +12% instructions). The origin is found
// without reading the unit's whole abbreviation table.
bool InlinedCopies::origin_elsewhere(uint64_t offset) {
  llvm::DWARFCompileUnit *holder = checks_.unit_dwarf().getCompileUnitForOffset(offset);
  if (!holder) return false;
  DwarfBytes bytes = files_.raw_dwarf();
  auto header = raw::read_unit_header(bytes, holder->getOffset());
  if (!header) return false;
  std::optional<uint64_t> link;
  find_attribute(*header, offset, raw::AT_abstract_origin,
                 [&](raw::Cursor &c, uint16_t form) { link = raw::reference(c, form, *header); });
  return link && (*link < header->offset || *link >= header->end);
}

// What LLVM reads of a copy through its origin at `offset`, read once for
// all the copies of a function.
const InlinedCopies::OriginFacts &InlinedCopies::origin_facts(uint64_t offset, Origins &origins) {
  auto [facts, made] = origins.try_emplace(offset);
  if (!made) return facts->second;
  llvm::DWARFDie origin = split_.die_at(offset);
  if (!origin.isValid() || origin.isNULL()) return facts->second;
  OriginFacts &f = facts->second;
  f.valid = true;
  const char *name = origin.getName(llvm::DINameKind::ShortName);
  const char *linkage = origin.getName(llvm::DINameKind::LinkageName);
  f.name = name ? name : "";
  f.linkage_name = linkage ? linkage : "";
  f.decl_file = source_file_of(checks_.unit_dwarf(), origin, llvm::dwarf::DW_AT_decl_file);
  f.decl_line = static_cast<int>(origin.getDeclLine());
  f.root = split_.handle_of(origin_root(origin));
  return f;
}

// Whether the links of the body at `body` (its first one `first_link`,
// already read) lead to `root`: a copy inlined into the very function whose
// body holds it (die_links.h's inlined_into_itself). Bounded as there.
bool InlinedCopies::links_reach(uint64_t body, std::optional<uint64_t> first_link, uint64_t root) {
  constexpr int max_links = 16;
  std::optional<uint64_t> at = body;
  for (int links = 0; at && links <= max_links; ++links) {
    if (*at == root) return true;
    const RawUnit *holder = links == 0 ? nullptr : raw_unit_holding(*at);
    std::optional<uint64_t> next = links == 0 ? first_link : holder ? raw_origin_link(*holder, *at) : std::nullopt;
    at = next == at ? std::nullopt : next;
  }
  return false;
}

std::optional<FoundFunction> InlinedCopies::read(uint64_t offset, Origins &origins) {
  const llvm::object::ObjectFile &obj = files_.image().object();
  if (obj.isRelocatableObject() || !obj.isLittleEndian() || is_split_handle(offset) || !origin_elsewhere(offset))
    return std::nullopt;
  const RawUnit *unit = raw_unit_holding(offset);
  std::optional<RawInlinedCopy> copy = unit ? read_inlined_copy(*unit, offset) : std::nullopt;
  if (!copy) return std::nullopt;
  const OriginFacts &origin = origin_facts(copy->origin, origins);
  if (!origin.valid) return std::nullopt;
  FoundFunction out;
  Function &fn = out.function;
  fn.name = origin.name;
  fn.decl_file = origin.decl_file;
  fn.decl_line = origin.decl_line;
  fn.entry = copy->entry;
  fn.frame_entry = copy->body_entry.value_or(copy->entry);
  fn.ranges = std::move(copy->ranges);
  fn.die_offset = offset;
  fn.inlined = true;
  fn.optimized = copy->optimized;
  out.linkage_name = origin.linkage_name;
  out.inlined_into_itself = copy->body && links_reach(*copy->body, copy->body_link, origin.root);
  return out;
}

}  // namespace kpp::dwarf
