#include "src/definition/site_check.h"

#include <algorithm>

#include "util/strings.h"

namespace kpp {

namespace {

Error refused(const dwarf::Function &fn, uint64_t address, const std::string &why) {
  return Error("refusing the site " + hex(address) + " of " + fn.name + ": " + why,
               "a cache file may be damaged: run again with --no-cache; if that gives the same, report it");
}

}  // namespace

Status check_final_site(dwarf::DebugInfo &debug, const dwarf::Function &fn, uint64_t address, bool force) {
  // gcc marks an inlined copy's entry point (DW_AT_entry_pc) with an empty
  // range [entry, entry) when the copy's first instruction is shared with
  // its caller: that address is the copy's too.
  auto in_ranges = [&fn](uint64_t a) {
    return a == fn.entry || std::any_of(fn.ranges.begin(), fn.ranges.end(), [a](const dwarf::AddressRange &r) {
             return r.contains(a) || (r.begin == r.end && r.begin == a);
           });
  };
  if (!fn.ranges.empty() && !in_ranges(address)) return refused(fn, address, "it is outside the function's code");
  if (auto symbol = debug.elf().symbolize(address)) {
    uint64_t start = address - symbol->second;
    if (!fn.inlined && !fn.ranges.empty() && !in_ranges(start))
      return refused(fn, address, "the symbol table puts it in " + symbol->first + ", not in " + fn.name);
  }
  if (!force && !debug.is_instruction_start(fn, address))
    return refused(fn, address, "it is not where an instruction starts, by " + debug.instruction_oracle());
  return Ok{};
}

}  // namespace kpp
