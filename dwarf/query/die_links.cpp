#include "dwarf/query/die_links.h"

#include "dwarf/raw/raw_cursor.h"

#include <algorithm>
#include <vector>

namespace kpp::dwarf {

using namespace llvm;

DWARFDie attribute_holder(DWARFDie die, llvm::dwarf::Attribute attribute) {
  // Real chains are two or three links long (a concrete copy, its abstract
  // origin, a class member's declaration).
  constexpr size_t max_visited = 16;
  std::vector<DWARFDie> queue{die};
  for (size_t next = 0; next < queue.size() && next < max_visited; ++next) {
    DWARFDie at = queue[next];
    if (!at.isValid()) continue;
    if (at.find(attribute)) return at;
    for (auto link : {llvm::dwarf::DW_AT_abstract_origin, llvm::dwarf::DW_AT_specification}) {
      DWARFDie target = at.getAttributeValueAsReferencedDie(link);
      if (target.isValid() && std::find(queue.begin(), queue.end(), target) == queue.end()) queue.push_back(target);
    }
  }
  return {};
}

std::string source_file_of(DWARFContext &dwarf, DWARFDie die, llvm::dwarf::Attribute attribute) {
  DWARFDie holder = attribute_holder(die, attribute);
  if (!holder.isValid()) return {};
  auto index = holder.find(attribute)->getAsUnsignedConstant();
  // A split unit's line table is its skeleton's, in the program.
  DWARFUnit *unit = holder.getDwarfUnit()->getLinkedUnit();
  const DWARFDebugLine::LineTable *table = unit ? dwarf.getLineTableForUnit(unit) : nullptr;
  std::string name;
  if (index && table)
    table->getFileNameByIndex(*index, unit->getCompilationDir(), DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
                              name);
  return name;
}

DWARFDie origin_root(DWARFDie die) {
  constexpr int max_links = 16;
  for (int links = 0; links < max_links && die.isValid(); ++links) {
    DWARFDie next = die.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_abstract_origin);
    if (!next.isValid()) next = die.getAttributeValueAsReferencedDie(llvm::dwarf::DW_AT_specification);
    if (!next.isValid() || next == die) return die;
    die = next;
  }
  return die;
}

bool inlined_into_itself(DWARFDie die) {
  if (!die.isValid() || die.getTag() != llvm::dwarf::DW_TAG_inlined_subroutine) return false;
  DWARFDie body = die.getParent();
  while (body.isValid() && body.getTag() != llvm::dwarf::DW_TAG_subprogram) body = body.getParent();
  return body.isValid() && origin_root(body) == origin_root(die);
}

std::optional<uint64_t> code_entry(DWARFDie die) {
  // A damaged reference (a .dwo's abstract origin into nothing) can land on a
  // null entry, which LLVM's attribute readers do not expect.
  if (!die.isValid() || die.isNULL() || !die.getAbbreviationDeclarationPtr()) return std::nullopt;
  if (auto entry_pc = die.find(llvm::dwarf::DW_AT_entry_pc))
    if (auto a = entry_pc->getAsAddress()) return *a;
  uint64_t low = 0, high = 0, section = 0;
  if (die.getLowAndHighPC(low, high, section)) return low;
  auto ranges = die.getAddressRanges();
  if (!ranges) {
    consumeError(ranges.takeError());
    return std::nullopt;
  }
  if (ranges->empty()) return std::nullopt;
  return ranges->front().LowPC;
}

DWARFDie innermost_function_at(DWARFUnit &unit, uint64_t address) {
  // All of them, before any is held: extracting the rest of a unit whose
  // unit DIE alone was read moves that DIE.
  (void)unit.dies();
  DWARFDie unit_die = unit.getUnitDIE(false), found;
  if (!unit_die.isValid()) return found;
  // Parents to look under, and whether only subprograms are looked for
  // there (under a function that does not hold `address`). A stack, not
  // recursion: hostile DWARF can nest DIEs deeply.
  std::vector<std::pair<DWARFDie, bool>> pending{{unit_die, false}};
  while (!pending.empty()) {
    auto [parent, subprograms_only] = pending.back();
    pending.pop_back();
    for (DWARFDie child = parent.getFirstChild(); child.isValid(); child = child.getSibling()) {
      llvm::dwarf::Tag tag = child.getTag();
      bool function = tag == llvm::dwarf::DW_TAG_subprogram ||
                      (tag == llvm::dwarf::DW_TAG_inlined_subroutine && !subprograms_only);
      bool holds = function && child.addressRangeContainsAddress(address);
      if (holds) found = child;  // the way down is taken after its parent's: the innermost comes last
      pending.push_back({child, holds ? false : subprograms_only || function});
    }
  }
  return found;
}

bool in_prologue_slot(llvm::DWARFDie die) {
  if (die.getTag() != llvm::dwarf::DW_TAG_formal_parameter) return false;
  llvm::DWARFDie parent = die.getParent();
  if (!parent.isValid() || parent.getTag() != llvm::dwarf::DW_TAG_subprogram) return false;
  auto loc = die.find(llvm::dwarf::DW_AT_location);
  if (!loc || !loc->isFormClass(llvm::DWARFFormValue::FC_Exprloc)) return false;
  auto block = loc->getAsBlock();
  if (!block || block->empty() || (*block)[0] != llvm::dwarf::DW_OP_fbreg) return false;
  // A frame base that is the CFA and an offset of 0 or more: the caller's
  // frame, where arguments passed on the stack are from the entry on (gcc -O2's
  // 7th argument of a kernel function), not a slot the prologue fills.
  auto base = parent.find(llvm::dwarf::DW_AT_frame_base);
  auto base_block = base && base->isFormClass(llvm::DWARFFormValue::FC_Exprloc) ? base->getAsBlock() : std::nullopt;
  if (base_block && base_block->size() == 1 && (*base_block)[0] == llvm::dwarf::DW_OP_call_frame_cfa) {
    raw::Cursor offset{block->data() + 1, block->data() + block->size()};
    int64_t at = offset.sleb();
    if (offset.ok && at >= 0) return false;
  }
  return true;
}

}  // namespace kpp::dwarf
