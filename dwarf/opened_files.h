// Debug information opened once per path, with the options of one run: the
// readers that meet the same programs again and again (-l's source places,
// the live view's latency pairs, stack frames) share what a file costs to
// open and index instead of paying it per probe or per frame.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "dwarf/debug_info.h"

namespace kpp::dwarf {

class OpenedFiles {
 public:
  // `max_files` (0: no bound) bounds how many stay open: past it all are
  // closed and opened again as asked (hostile input may name many files).
  explicit OpenedFiles(OpenOptions options = {}, size_t max_files = 0)
      : options_(std::move(options)), max_files_(max_files) {}

  // The file at `path`, opened on first use; null when it cannot be opened
  // (remembered, so it is not tried again).
  DebugInfo *get(const std::string &path);
  const OpenOptions &options() const { return options_; }
  // Closes `path`: the next get() opens it again (its debug file has come).
  void forget(const std::string &path) { opened_.erase(path); }

 private:
  OpenOptions options_;
  size_t max_files_;
  std::map<std::string, std::unique_ptr<DebugInfo>> opened_;
};

}  // namespace kpp::dwarf
