#include "src/stack/module_placement.h"

#include <algorithm>

namespace kpp {

std::optional<uint64_t> module_link_address(dwarf::ElfFacts &ko, const Kallsyms &kallsyms,
                                            const KallsymsEntry &function, uint64_t offset) {
  std::vector<uint64_t> running = kallsyms.addresses_of(function.name, function.module);
  std::vector<uint64_t> linked = ko.function_symbol_addresses(function.name);
  // A copy count that differs: not the loaded build, or a name the kernel
  // lists otherwise; guessing would name another function's lines.
  if (linked.empty() || linked.size() != running.size()) return std::nullopt;
  std::sort(linked.begin(), linked.end());
  auto copy = std::find(running.begin(), running.end(), function.address);
  if (copy == running.end()) return std::nullopt;
  uint64_t start = linked[static_cast<size_t>(copy - running.begin())];
  uint64_t link = start + offset;
  // Still inside that function in the .ko (an alias of it may be named):
  // past its end (another build's), the lines would be another function's.
  auto named = ko.symbolize(link);
  if (!named || link - named->second != start) return std::nullopt;
  return link;
}

}  // namespace kpp
