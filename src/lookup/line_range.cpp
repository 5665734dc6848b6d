#include "src/lookup/line_range.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace kpp {

namespace {

// Reads a decimal number at `pos`, all its digits (a value past kMaxLine
// reads as kMaxLine + 1); nullopt when there is none.
std::optional<int> number_at(std::string_view s, size_t &pos) {
  size_t start = pos;
  int64_t v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
    v = std::min<int64_t>(v * 10 + (s[pos++] - '0'), int64_t{kMaxLine} + 1);
  if (pos == start) return std::nullopt;
  return static_cast<int>(v);  // at most kMaxLine + 1
}

Error at(std::string_view text, size_t begin, size_t end, const std::string &message) {
  return Error(message).at(std::string(text), {begin, std::max(end, begin + 1)});
}

Error too_large(std::string_view text, size_t begin, size_t end) {
  return at(text, begin, end, "line numbers go up to " + std::to_string(kMaxLine));
}

// The first ':' that is not half of C++'s "::" ("ns::f:3" -> the one before 3)
// nor escaped (perf's "ns\:\:f:3").
size_t line_colon(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] != ':') continue;
    if (i + 1 < s.size() && s[i + 1] == ':') {
      ++i;
      continue;
    }
    return i;
  }
  return std::string_view::npos;
}

// `s` without its backslash escapes, as perf's strdup_esq.
std::string unescaped(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out += s[i];
  }
  return out;
}

}  // namespace

Result<LineRange> parse_line_range(std::string_view text, LineRangeAs as) {
  LineRange r;
  size_t colon = line_colon(text);
  std::string_view head = text.substr(0, colon);
  if (head.empty()) return at(text, 0, 1, "a line range starts with a function or a source file");
  // A lazy pattern chooses probe places; -L lists lines (perf refuses it too).
  if (size_t semicolon = text.find(';'); semicolon != std::string_view::npos)
    return at(text, semicolon, text.size(), "a lazy pattern (;PTN) places probes: -L takes FUNC[:RLN[+N|-RLN2]] or SRC:ALN");
  // As in probe specs: a word with a '.' and no '@' is a file.
  bool is_file = as == LineRangeAs::Deduced && head.find('.') != std::string_view::npos &&
                 head.find('@') == std::string_view::npos;
  if (is_file) {
    r.file = std::string(head);
    // Go's "main.Split", Rust's "crate::f" after a '.' in a path: no '/', no escapes.
    r.could_be_function = head.find_first_of("/\\") == std::string_view::npos;
    if (colon == std::string_view::npos && !r.could_be_function)
      return at(text, 0, text.size(), "a source file needs a line: SRC:ALN");
  } else {
    size_t atsign = head.find('@');
    r.function = unescaped(head.substr(0, atsign));
    if (atsign != std::string_view::npos) r.file = std::string(head.substr(atsign + 1));
    if (r.function.empty()) return at(text, 0, 1, "missing function name");
  }
  if (colon == std::string_view::npos) return r;  // the whole function (or a file the caller reads as one)
  size_t pos = colon + 1;
  auto first = number_at(text, pos);
  if (!first) return at(text, colon + 1, text.size(), "expected a line number after ':'");
  if (*first > kMaxLine) return too_large(text, colon + 1, pos);
  r.begin = *first;
  if (pos == text.size()) {
    if (is_file) r.end = r.begin;  // SRC:ALN alone is one line
    return r;
  }
  char op = text[pos++];
  size_t number_start = pos;
  auto second = number_at(text, pos);
  if ((op != '+' && op != '-') || !second)
    return at(text, number_start - 1, text.size(), "expected '+NUM' or '-LAST' after the line number");
  if (pos != text.size()) return at(text, pos, text.size(), "unexpected text after the line range");
  if (op == '-' && *second > kMaxLine) return too_large(text, number_start, pos);
  r.end = op == '+' ? std::min(r.begin + *second, kMaxLine) : *second;  // both at most kMaxLine + 1: no overflow
  if (*r.end < r.begin) return at(text, number_start, pos, "the range ends before it starts");
  return r;
}

int last_line_walked(int first, int last, std::optional<int> source_lines, std::optional<int> last_code_line) {
  int64_t bound = source_lines ? *source_lines
                  : last_code_line ? *last_code_line
                                   : int64_t{first} + kLinesWalkedBlind - 1;
  return static_cast<int>(std::min<int64_t>({last, bound, kMaxLine}));  // kMaxLine: ++line never wraps
}

}  // namespace kpp
