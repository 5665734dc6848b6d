#include "src/stream/filter_expression.h"

namespace kpp {

Status check_filter_expression(const std::string &filter) {
  int depth = 0;
  char quote = 0;
  for (char c : filter) {
    if (c == '\n' || c == '\r' || c == '\0') return Error("--filter: the expression must be one line");
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == ')') {
      depth += c == '(' ? 1 : -1;
      if (depth < 0) break;
    }
  }
  if (quote) return Error("--filter: a string is not closed (" + std::string(1, quote) + ")");
  if (depth != 0)
    return Error("--filter: the parentheses do not pair up",
                 "the expression is put in parentheses of its own: a ')' must close a '(' of it");
  return Ok{};
}

}  // namespace kpp
