#include "dwarf/opened_files.h"

namespace kpp::dwarf {

DebugInfo *OpenedFiles::get(const std::string &path) {
  if (auto it = opened_.find(path); it != opened_.end()) return it->second.get();
  if (max_files_ > 0 && opened_.size() >= max_files_) opened_.clear();
  auto info = DebugInfo::open(path, options_);
  return opened_.emplace(path, info ? std::move(*info) : nullptr).first->second.get();
}

}  // namespace kpp::dwarf
