#include "src/spec/error_format.h"

#include <algorithm>

namespace kpp {

std::string format_error(const Error &error) {
  std::string out = "kprobe-probe: error: " + error.message + "\n";
  if (error.span && !error.source.empty()) {
    const Span &span = *error.span;
    out += "  " + error.source + "\n  ";
    size_t begin = std::min(span.begin, error.source.size());
    for (size_t i = 0; i < begin; ++i) out += error.source[i] == '\t' ? '\t' : ' ';
    out += '^';
    if (span.end > span.begin + 1) out.append(span.end - span.begin - 1, '~');
    out += '\n';
  }
  if (!error.hint.empty()) out += "  hint: " + error.hint + "\n";
  return out;
}

}  // namespace kpp
