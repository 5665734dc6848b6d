// The -L/--line argument, perf probe's LINE SYNTAX:
//   FUNC[@SRC][:RLN[+NUM|-RLN2]]    lines relative to FUNC's first line
//   SRC:ALN[+NUM|-ALN2]             absolute lines of a source file
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/util/result.h"

namespace kpp {

struct LineRange {
  std::string function;     // empty for SRC:ALN
  std::string file;         // @SRC, or the SRC of SRC:ALN
  int begin = 0;            // first line (relative with a function)
  std::optional<int> end;   // last line, inclusive; none = to the end of the function
};

// Errors point at the spec with a caret, like probe specs.
Result<LineRange> parse_line_range(std::string_view text);

}  // namespace kpp
