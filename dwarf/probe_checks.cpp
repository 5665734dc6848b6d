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
  std::set<std::string> wanted(names.begin(), names.end());
  std::map<std::string, uint64_t> found;
  // Markers are NOTYPE symbols, which functions_/symbols_ leave out.
  for (const object::SymbolRef &sym : binary_.getBinary()->symbols()) {
    auto name = sym.getName();
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    if (!wanted.count(name->str())) continue;
    auto address = sym.getAddress();
    if (!address) {
      consumeError(address.takeError());
      continue;
    }
    found.emplace(name->str(), *address);
    if (found.size() == wanted.size()) break;
  }
  return found;
}

}  // namespace kpp::dwarf
