// The frames of the code at an address (DebugInfo::frames_at), for stacks:
// what llvm-symbolizer and gdb's `bt` show for one return address, inlined
// calls expanded. The innermost function's line comes from the line table;
// each caller's line is the DW_AT_call_line of the copy inlined into it.
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>

#include "dwarf/query/die_links.h"
#include "dwarf/query/source_places.h"

namespace kpp::dwarf {

using namespace llvm;

std::vector<CodeFrame> SourcePlaces::frames_at(uint64_t address) {
  std::vector<DWARFDie> chain = function_chain_at(address);  // outermost first
  if (chain.empty()) return {};
  std::vector<CodeFrame> frames;
  frames.reserve(chain.size());
  // Innermost: the row that covers the address.
  CodeFrame inner;
  DWARFUnit *unit = chain.front().getDwarfUnit()->getLinkedUnit();
  if (const DWARFDebugLine::LineTable *table = unit ? checks_.unit_dwarf().getLineTableForUnit(unit) : nullptr) {
    uint32_t at = lines_.row_at(*table, address);
    if (at != table->UnknownRowIndex) {
      inner.line = static_cast<int>(table->Rows[at].Line);
      inner.file = LineTables::file_of_row(unit, table, table->Rows[at].File);
    }
  }
  for (size_t i = chain.size(); i-- > 0;) {
    const DWARFDie &die = chain[i];
    CodeFrame frame = i + 1 == chain.size() ? inner : CodeFrame{};
    if (i + 1 < chain.size()) {
      // The caller's line is where the copy inside it was called from.
      const DWARFDie &callee = chain[i + 1];
      frame.file = source_file_of(checks_.unit_dwarf(), callee, llvm::dwarf::DW_AT_call_file);
      frame.line = static_cast<int>(llvm::dwarf::toUnsigned(callee.find(llvm::dwarf::DW_AT_call_line), 0));
    }
    const char *name = die.getSubroutineName(DINameKind::ShortName);
    frame.function = name ? name : "";
    frame.inlined = die.getTag() == llvm::dwarf::DW_TAG_inlined_subroutine;
    frames.push_back(std::move(frame));
  }
  return frames;
}

}  // namespace kpp::dwarf
