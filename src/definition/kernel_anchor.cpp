#include "src/definition/kernel_anchor.h"

#include <algorithm>

#include "util/strings.h"

namespace kpp {

Result<KernelPlacement> place_kernel_probe(dwarf::ElfFacts &debug, uint64_t address, const std::string &module,
                                           const std::string &entry_symbol) {
  auto sym = debug.symbolize(address);
  if (!sym) return Error("no symbol covers " + hex(address));
  if (!entry_symbol.empty() && sym->first != entry_symbol && sym->second == 0) {
    auto at = debug.function_symbol_addresses(entry_symbol);
    if (std::find(at.begin(), at.end(), address) != at.end()) sym->first = entry_symbol;
  }
  KernelPlacement p;
  p.module = module;
  p.symbol = sym->first;
  p.symbol_address = address - sym->second;
  p.address = address;
  p.anchor = p.symbol;
  p.anchor_address = p.symbol_address;
  if (module.empty()) {
    auto text = debug.symbol_addresses({"_text"});
    if (auto it = text.find("_text"); it != text.end() && it->second <= address) p.text_address = it->second;
  }
  size_t copies = debug.function_symbol_addresses(p.symbol).size();
  if (copies <= 1) return p;

  if (module.empty()) {
    if (!p.text_address)
      return Error("'" + p.symbol + "' names " + std::to_string(copies) + " functions in '" + debug.path() +
                       "' and it has no _text symbol to tell the kernel which one",
                   "the kernel refuses a name it holds more than once");
    return anchored_on_text(p);
  }
  auto unique = debug.unique_function_symbol_before(address);
  if (!unique)
    return Error("'" + p.symbol + "' names " + std::to_string(copies) + " functions in module " + module +
                     " and no function symbol before it in its section is unique",
                 "the kernel refuses a name it holds more than once");
  p.anchor = unique->first;
  p.anchor_address = address - unique->second;
  return p;
}

KernelPlacement anchored_on_text(KernelPlacement placement) {
  placement.anchor = "_text";
  placement.anchor_address = placement.text_address;
  return placement;
}

}  // namespace kpp
