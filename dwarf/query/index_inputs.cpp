// What the function index (dwarf/index/function_index.h) reads of the DWARF
// (index_inputs.h): the units' spans, read from LLVM's unit headers.
#include "dwarf/query/index_inputs.h"

namespace kpp::dwarf {

std::vector<UnitSpan> IndexInputs::unit_spans() {
  // LLVM reads every unit header here (map_headers_alone() maps only those).
  std::vector<UnitSpan> spans;
  for (const auto &unit : checks_.unit_dwarf().info_section_units())
    spans.push_back({unit->getOffset(), unit->getNextUnitOffset(),
                     static_cast<uint8_t>(unit->getFormParams().getDwarfOffsetByteSize()),
                     static_cast<uint8_t>(unit->getVersion()), unit->getUnitType() == llvm::dwarf::DW_UT_skeleton,
                     unit->getAbbreviationsOffset()});
  return spans;
}

}  // namespace kpp::dwarf
