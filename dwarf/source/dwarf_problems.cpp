#include "dwarf/source/dwarf_problems.h"

#include <algorithm>

namespace kpp::dwarf {

DwarfProblems::DwarfProblems() : kept_(std::make_shared<Kept>()) {}

std::function<void(llvm::Error)> DwarfProblems::handler(const std::string &file) const {
  return [kept = kept_, file](llvm::Error error) {
    std::string message = file + ": " + llvm::toString(std::move(error));
    if (std::find(kept->messages.begin(), kept->messages.end(), message) != kept->messages.end()) return;
    if (kept->messages.size() < kMaxKept) kept->messages.push_back(std::move(message));
    else ++kept->dropped;
  };
}

std::vector<std::string> DwarfProblems::messages() const {
  std::vector<std::string> out = kept_->messages;
  if (kept_->dropped) out.push_back("and " + std::to_string(kept_->dropped) + " more DWARF problems");
  return out;
}

}  // namespace kpp::dwarf
