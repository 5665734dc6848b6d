// Finding a source file's text: where DWARF says it is, else under the
// -s/--source directory, trying ever shorter tails of the recorded path
// (a tree built elsewhere and moved).
#pragma once

#include <string>
#include <vector>

#include "src/util/result.h"

namespace kpp {

struct SourceText {
  std::string path;                // where it was found
  std::vector<std::string> lines;  // lines[0] is line 1
};

// Errors list every path tried.
Result<SourceText> read_source(const std::string &recorded_path, const std::string &source_dir);

}  // namespace kpp
