// Facts the definition builder checks before it lets a kernel probe through:
// instruction starts (from the line table) and section marker symbols.
#include <set>

#include "dwarf/llvm_debug_info.h"

namespace kpp::dwarf {

using namespace llvm;

bool LlvmDebugInfo::is_instruction_start(const Function &fn, uint64_t address) {
  if (address == fn.entry) return true;
  for (const LineRow &row : rows_of(fn))
    if (row.address == address) return true;
  return false;
}

std::map<std::string, uint64_t> LlvmDebugInfo::symbol_addresses(const std::vector<std::string> &names) {
  // Each spec asks for the same markers: the symbol table (~120k entries in
  // a vmlinux) is walked once for names not asked for before.
  std::set<std::string_view> wanted;
  for (const std::string &n : names)
    if (!marker_addresses_.count(n)) wanted.insert(n);
  if (!wanted.empty()) {
    for (std::string_view n : wanted) marker_addresses_.emplace(n, std::nullopt);
    size_t left = wanted.size();
    // Markers are NOTYPE symbols, which functions_/symbols_ leave out.
    for (const object::SymbolRef &sym : binary_.getBinary()->symbols()) {
      auto name = sym.getName();
      if (!name) {
        consumeError(name.takeError());
        continue;
      }
      if (!wanted.count(std::string_view(name->data(), name->size()))) continue;
      auto address = sym.getAddress();
      if (!address) {
        consumeError(address.takeError());
        continue;
      }
      auto &slot = marker_addresses_[name->str()];
      if (!slot) --left;
      if (!slot) slot = *address;  // the first of same-named symbols, as before
      if (left == 0) break;
    }
  }
  std::map<std::string, uint64_t> found;
  for (const std::string &n : names)
    if (auto it = marker_addresses_.find(n); it != marker_addresses_.end() && it->second) found.emplace(n, *it->second);
  return found;
}

}  // namespace kpp::dwarf
