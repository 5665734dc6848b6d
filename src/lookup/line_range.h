// The -L/--line argument, perf probe's LINE SYNTAX:
//   FUNC[@SRC][:RLN[+NUM|-RLN2]]    lines relative to FUNC's first line
//   SRC:ALN[+NUM|-ALN2]             absolute lines of a source file
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kpp {

struct LineRange {
  std::string function;     // empty for SRC:ALN
  std::string file;         // @SRC, or the SRC of SRC:ALN
  int begin = 0;            // first line (relative with a function)
  std::optional<int> end;   // last line, inclusive; none = to the end of the function
  // Read as a file by perf's rule (a '.' in it), but also a function's name
  // ("main.Split", Go's and Rust's qualified names): the caller tries it as
  // a function (parse_line_range(text, LineRangeAs::Function)) when no
  // source file has that name.
  bool could_be_function = false;
};

enum class LineRangeAs { Deduced, Function };

// The largest line number a range can name (no source file is this long):
// a larger ALN/RLN is refused, a "+NUM" that goes past it ends there, so
// that no sum of line numbers wraps around INT_MAX.
inline constexpr int kMaxLine = 1 << 24;

// Errors point at the spec with a caret, like probe specs. A word with a
// '.' and no '@' is a file (perf's rule) unless `as` says Function. A file
// without a line is refused unless it could be a function: then the range
// is returned with could_be_function, for the caller to decide.
Result<LineRange> parse_line_range(std::string_view text, LineRangeAs as = LineRangeAs::Deduced);

// How far -L walks a range whose last line is `last`: no further than the
// last line that exists, that is the source's last line when the source
// was found, else the last line with code when that is known; with neither
// (a SRC:ALN range without its source), at most kLinesWalkedBlind lines, as
// each line is a search of the line tables. "FILE:1+10000000" is "to the end".
inline constexpr int kLinesWalkedBlind = 4096;
int last_line_walked(int first, int last, std::optional<int> source_lines, std::optional<int> last_code_line);

}  // namespace kpp
