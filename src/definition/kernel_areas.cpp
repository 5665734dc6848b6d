#include "src/definition/kernel_areas.h"

namespace kpp {

KernelAreas KernelAreas::of(dwarf::ElfFacts &debug) {
  // Section name and marker prefix (kernel/kprobes.c populate_kprobe_blacklist
  // and arch_populate_kprobe_blacklist blacklist these areas).
  static const std::pair<const char *, const char *> known[] = {
      {".kprobes.text", "__kprobes_text"}, {".noinstr.text", "__noinstr_text"}, {".entry.text", "__entry_text"}};
  std::vector<std::string> names;
  for (const auto &[section, marker] : known) {
    names.push_back(std::string(marker) + "_start");
    names.push_back(std::string(marker) + "_end");
  }
  auto found = debug.symbol_addresses(names);
  KernelAreas out;
  for (const auto &[section, marker] : known) {
    auto start = found.find(std::string(marker) + "_start");
    auto end = found.find(std::string(marker) + "_end");
    if (start != found.end() && end != found.end() && start->second < end->second)
      out.areas_.push_back({section, {start->second, end->second}});
  }
  return out;
}

std::optional<std::string> KernelAreas::area_of(uint64_t address) const {
  for (const Area &a : areas_)
    if (a.range.contains(address)) return a.name;
  return std::nullopt;
}

}  // namespace kpp
