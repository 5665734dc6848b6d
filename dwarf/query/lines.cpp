// FILE:LINE answered: the units whose line tables may name the file (as the
// function index says), the addresses where the line begins there
// (line_tables.h), and the function each address is described by
// (source_places.h), as source_of() describes an address.
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>

#include "dwarf/query/llvm_debug_info.h"

namespace kpp::dwarf {

using namespace llvm;

std::vector<DWARFUnit *> LlvmDebugInfo::units_naming(const std::string &file, bool search) {
  std::vector<DWARFUnit *> units;
  auto answer = function_index_.units_naming(file, search);
  if (!answer) {
    for (const auto &unit : checks_.unit_dwarf().compile_units()) units.push_back(unit.get());
    return units;
  }
  for (uint64_t offset : answer->offsets) {
    DWARFUnit *unit = checks_.unit_dwarf().getCompileUnitForOffset(offset);
    if (unit && unit->getOffset() == offset) units.push_back(unit);
    else if (answer->cached) {  // a cached index listed no unit there: it is made again, and asked again
      function_index_.distrust("no unit starts at " + std::to_string(offset) + ", which it lists for '" + file + "'");
      return units_naming(file);
    }
  }
  return units;
}

std::vector<std::pair<LineSite, Function>> LlvmDebugInfo::file_line_sites(const std::string &file, int line) {
  // A cached index's units that give nothing: the byte search confirms (a
  // crafted index could leave a unit out; issue 12 item 3), on misses only.
  auto sites = file_line_sites_in(units_naming(file), file, line);
  if (sites.empty() && function_index_.source() == IndexSource::Cache) sites = file_line_sites_in(units_naming(file, /*search=*/true), file, line);
  return sites;
}

std::vector<std::pair<LineSite, Function>> LlvmDebugInfo::file_line_sites_in(const std::vector<DWARFUnit *> &units,
                                                                            const std::string &file, int line) {
  std::vector<std::pair<LineSite, Function>> result;
  for (DWARFUnit *unit : units) {
    for (const auto &[address, path] : lines_.line_starts(unit, file, line)) {
      // The function -l will name there: the one whose text has the line,
      // an inlined copy when its code was inlined (under LTO, often into
      // another file's function), or the caller at a copy's first instruction.
      auto owner = places_.owner_of_address(address);
      auto fn = owner ? functions_.function_from_die(owner->function) : std::nullopt;
      if (!fn) continue;
      result.push_back({LineSite{address, path, line}, std::move(*fn)});
    }
  }
  return result;
}

std::optional<SourcePlace> LlvmDebugInfo::source_of(uint64_t address) {
  auto owner = places_.owner_of_address(address);
  if (!owner) return std::nullopt;
  auto fn = functions_.function_from_die(owner->function);
  if (!fn) return std::nullopt;
  return SourcePlace{fn->name, fn->entry, fn->decl_line, fn->decl_file, owner->line};
}

}  // namespace kpp::dwarf
