// [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN]  |  SRC:ALN  |  SRC;PTN
//
// The rules are perf probe's (parse_perf_probe_point): '=', '@', '+', ':',
// ';' and '%' are special unless escaped with '\' or quoted (and, unlike
// perf, "::" is never special: C++ names need no escapes); ';PTN' ends the
// point and keeps its text raw; the token is a source file only if it has no
// '+', '@' or '%' and a '.' before its ':' or ';'; then one check per
// forbidden combination, each with its own message.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "src/spec/cxx_point.h"
#include "src/spec/spec_support.h"
#include "src/spec/spec_parts.h"

namespace kpp::spec_detail {
namespace {

// One character of the point after removing escapes and quotes. `literal`
// characters (escaped, quoted, inside a C++ name's brackets or operator
// name) are never special; `nested` ones are inside (...), <...> or {...}.
struct PointChar {
  char c;
  size_t col;
  bool literal;
  bool nested = false;
};

struct ScannedPoint {
  std::vector<PointChar> chars;  // everything before ';'
  std::optional<size_t> lazy_col;// column of ';'
  std::string lazy;              // the raw text after ';' (escapes kept, as perf does)
};

// Reads the point's characters one at a time into a ScannedPoint: escapes
// and quotes removed, each character marked literal or nested.
class PointScanner {
 public:
  PointScanner(std::string_view spec, size_t begin, size_t end)
      : spec_(spec), end_(end), i_(begin),
        // A C++ name as printed may follow words of a return type
        // (cxx_point.h): they name nothing and are dropped when the name starts.
        name_begin_(point_name_begin(spec.substr(0, end), begin)), type_dropped_(name_begin_ == begin) {}

  Result<ScannedPoint> scan() {
    for (; i_ < end_; ++i_) {
      if (!type_dropped_ && i_ >= name_begin_) drop_return_type();
      auto more = step();
      if (!more) return std::move(more).error();
      if (!*more) return std::move(out_);
    }
    if (quote_ != 0)
      return spec_error(spec_, quote_col_, end_, std::string("unterminated quote ") + quote_ + " in the probe point");
    return std::move(out_);
  }

 private:
  // Takes the character at i_ (and the ones it brings: an escaped one, a
  // "::", an operator's name); false when the point ends there at ';'.
  Result<bool> step() {
    char c = spec_[i_];
    if (c == '\\') return take_escaped();
    if (quote_ != 0) {
      if (c == quote_) quote_ = 0;
      else push_literal(i_);
      return true;
    }
    if (c == '\'' || c == '"') {
      quote_ = c;
      quote_col_ = i_;
      return true;
    }
    if (c == ':' && i_ + 1 < end_ && spec_[i_ + 1] == ':') {
      // C++'s scope operator ("ns::Cls::method") is part of the name: a
      // line number follows a single ':'. perf needs it escaped ("ns\:\:f");
      // that form works too.
      push_literal(i_);
      push_literal(++i_);
      return true;
    }
    if (take_operator_name() || take_bracketed(c)) return true;
    if (c == ';') {
      out_.lazy_col = i_;
      out_.lazy = std::string(spec_.substr(i_ + 1, end_ - i_ - 1));
      return false;
    }
    // White space is between a return type's words, or before a qualifier
    // (" const"): the C++ matcher ignores it.
    if (!std::isspace(static_cast<unsigned char>(c))) take_plain(c);
    return true;
  }

  // The name starts here: what came since EVENT= was a return type's words.
  void drop_return_type() {
    type_dropped_ = true;
    out_.chars.resize(std::min(out_.chars.size(), head_));
    name_done_ = false;
    depth_ = 0;
  }

  Result<bool> take_escaped() {
    if (i_ + 1 == end_)
      return spec_error(spec_, i_, i_ + 1, "a backslash at the end of the probe point escapes nothing",
                        "escape a special character as '\\@', or write '\\\\' for a backslash");
    push_literal(++i_);
    return true;
  }

  // "operator+=", "operator()": its characters are the name's (blanks left out).
  bool take_operator_name() {
    if (name_done_) return false;
    size_t op = operator_name_end(spec_.substr(0, end_), i_);
    if (op == i_) return false;
    for (; i_ < op; ++i_)
      if (!std::isspace(static_cast<unsigned char>(spec_[i_]))) push_literal(i_);
    --i_;
    return true;
  }

  // Brackets and operators are a C++ name's, before the name ends at '@',
  // '+', '%' or ':' (a file "@(x).c" has no brackets to balance); inside
  // them every character is the name's, spaces too: the C++ matcher ignores them.
  bool take_bracketed(char c) {
    if (!name_done_ && (c == '(' || c == '<' || c == '{' || c == '['))
      ++depth_;
    else if ((c == ')' || c == '>' || c == '}' || c == ']') && depth_ > 0)
      --depth_;
    else if (depth_ == 0)
      return false;
    out_.chars.push_back({c, i_, true, true});
    return true;
  }

  // A character that may be special: '=' ends EVENT, '@', '+', '%' and ':'
  // end the name.
  void take_plain(char c) {
    out_.chars.push_back({c, i_, false});
    if (c == '=' && head_ == 0) head_ = out_.chars.size();
    name_done_ |= std::string_view("@+%:").find(c) != std::string_view::npos;
  }

  void push_literal(size_t col) { out_.chars.push_back({spec_[col], col, true, depth_ > 0}); }

  std::string_view spec_;
  size_t end_;
  size_t i_;
  size_t name_begin_;
  bool type_dropped_;
  ScannedPoint out_;
  char quote_ = 0;
  size_t quote_col_ = 0;
  int depth_ = 0;
  size_t head_ = 0;  // where the name starts in out_.chars: after EVENT=
  bool name_done_ = false;
};

Result<ScannedPoint> scan_point(std::string_view spec, size_t begin, size_t end) {
  return PointScanner(spec, begin, end).scan();
}

// A run of scanned characters and where it sits in the spec.
struct Piece {
  std::string text;
  size_t begin = 0;  // column of the first character (or of the sigil before an empty piece)
  size_t end = 0;
};

Piece make_piece(const std::vector<PointChar> &chars, size_t from, size_t to, size_t fallback_col) {
  Piece p;
  p.begin = p.end = fallback_col;
  for (size_t i = from; i < to; ++i) p.text += chars[i].c;
  if (from < to) {
    p.begin = chars[from].col;
    p.end = chars[to - 1].col + 1;
  }
  return p;
}

size_t find_special(const std::vector<PointChar> &chars, size_t from, std::string_view set) {
  for (size_t i = from; i < chars.size(); ++i)
    if (!chars[i].literal && set.find(chars[i].c) != std::string_view::npos) return i;
  return chars.size();
}

Status check_name(std::string_view spec, const Piece &name, const char *what) {
  if (!is_c_identifier(name.text))
    return spec_error(spec, name.begin, name.end,
                      "'" + name.text + "' is bad for " + what + " name: it must follow the C symbol-naming rule",
                      "use letters, digits and '_', not starting with a digit");
  if (name.text.size() >= kMaxEventNameLen)
    return spec_error(spec, name.begin, name.end,
                      std::string(what) + " name '" + name.text + "' is too long: " +
                          std::to_string(name.text.size()) + " bytes, at most " +
                          std::to_string(kMaxEventNameLen - 1) + " fit in perf's MAX_EVENT_NAME_LEN",
                      "choose a shorter name with [GROUP:]EVENT=PROBEDEF");
  return Ok{};
}

// [GROUP:]EVENT, the chars before '='. `eq_col` is the '=' column.
Status parse_event_part(std::string_view spec, const std::vector<PointChar> &chars, size_t eq,
                        ProbeSpec &out) {
  size_t eq_col = chars[eq].col;
  size_t colon = find_special(chars, 0, ":");
  if (colon > eq) colon = eq;
  if (colon < eq) {
    Piece group = make_piece(chars, 0, colon, chars[colon].col);
    if (group.text.empty())
      return spec_error(spec, chars[colon].col, chars[colon].col + 1, "group name is empty before ':'");
    if (auto st = check_name(spec, group, "a group"); !st) return st;
    out.group = group.text;
  }
  size_t event_from = colon < eq ? colon + 1 : 0;
  Piece event = make_piece(chars, event_from, eq, eq_col);
  if (event.text.empty()) return spec_error(spec, eq_col, eq_col + 1, "event name is empty before '='");
  if (auto st = check_name(spec, event, "an event"); !st) return st;
  out.event = event.text;
  return Ok{};
}

bool is_decimal(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// What the point said, with the span of each part for the exclusion checks.
struct PointParts {
  std::optional<Piece> file, line, offset, ret, lazy;
  Piece head;
};

Status parse_segment(std::string_view spec, char sigil, size_t sigil_col, const Piece &arg,
                     PointParts &parts, ProbePoint &pp) {
  auto twice = [&](const char *what) {
    return spec_error(spec, sigil_col, arg.end, std::string(what) + " is given twice in the probe point");
  };
  Piece whole = arg;
  whole.begin = sigil_col;
  if (arg.text.empty()) whole.end = sigil_col + 1;
  switch (sigil) {
    case ':':
      if (parts.line) return twice("a line number");
      if (arg.text.empty()) return spec_error(spec, sigil_col, sigil_col + 1, "line number is missing after ':'");
      if (!is_decimal(arg.text))
        return spec_error(spec, arg.begin, arg.end, "There is non-digit char in line number.");
      if (!parse_c_number(arg.text, pp.line))
        return spec_error(spec, arg.begin, arg.end, "line number '" + arg.text + "' is too large");
      parts.line = whole;
      return Ok{};
    case '+': {
      if (parts.offset) return twice("an offset");
      if (arg.text.empty()) return spec_error(spec, sigil_col, sigil_col + 1, "offset is missing after '+'");
      uint64_t off = 0;
      if (!parse_c_number(arg.text, off))
        return spec_error(spec, arg.begin, arg.end, "There is non-digit character in offset.",
                          "write the offset in bytes, decimal or 0x hexadecimal");
      pp.offset = off;
      parts.offset = whole;
      return Ok{};
    }
    case '@':
      if (parts.file) return spec_error(spec, sigil_col, whole.end, "SRC@SRC is not allowed.");
      if (arg.text.empty()) return spec_error(spec, sigil_col, sigil_col + 1, "source file is missing after '@'");
      if (arg.text != "*") pp.file = arg.text;  // FUNC@* : any file, as perf
      parts.file = whole;
      return Ok{};
    case '%':
      if (arg.text != "return")
        return spec_error(spec, sigil_col, whole.end, "%" + arg.text + " is not supported.",
                          "the only probe place after '%' is %return");
      if (parts.ret) return twice("%return");
      pp.is_return = true;
      parts.ret = whole;
      return Ok{};
  }
  return Ok{};
}

const Piece &later(const Piece &a, const Piece &b) { return a.begin > b.begin ? a : b; }

// perf's exclusion checks, in perf's order, each pointing at the later part.
Status check_combinations(std::string_view spec, const PointParts &parts, const ProbePoint &pp) {
  auto fail = [&](const Piece &at, const char *message) {
    return spec_error(spec, at.begin, at.end, message);
  };
  if (parts.lazy && parts.line) return fail(*parts.lazy, "Lazy pattern can't be used with line number.");
  if (parts.lazy && parts.offset) return fail(*parts.lazy, "Lazy pattern can't be used with offset.");
  if (parts.line && parts.offset)
    return fail(later(*parts.line, *parts.offset), "Offset can't be used with line number.");
  bool has_function = !pp.function.empty() || pp.address;
  // On the line's value, as perf (`!pp->line`): SRC:0 names no line, and
  // would read back (formatted) as a function named SRC.
  if (pp.line == 0 && !parts.lazy && !pp.file.empty() && !has_function)
    return fail(parts.line ? *parts.line : *parts.file, "File always requires line number or lazy pattern.");
  if (parts.offset && !has_function) return fail(*parts.offset, "Offset requires an entry function.");
  if (parts.ret) {
    if (parts.offset) return fail(later(*parts.offset, *parts.ret), "Offset can't be used with %return.");
    if (parts.line) return fail(later(*parts.line, *parts.ret), "Line number can't be used with %return.");
    if (parts.lazy) return fail(*parts.lazy, "Lazy pattern can't be used with %return.");
  }
  if (!has_function && pp.file.empty())
    return spec_error(spec, parts.head.begin, parts.head.end, "the probe point names no function and no source file",
                      "write FUNC, FUNC:LINE, FUNC@SRC, SRC:LINE or SRC;PATTERN");
  return Ok{};
}

// An SDT marker's spellings (perf's parse_sdt_event and is_sdt_event):
// "%[sdt_]PROVIDER:NAME", "%NAME", "sdt_PROVIDER:NAME", and, ours where it can
// mean nothing else, "PROVIDER:NAME" with a NAME that is not a line number.
// `rest` is the point after any EVENT=, at column `col` of `spec`. Returns
// false when `rest` is none of them.
Result<bool> parse_sdt_point(std::string_view spec, std::string_view rest, size_t col, ProbePoint &pp) {
  bool percent = rest.starts_with('%');
  std::string_view body = percent ? rest.substr(1) : rest;
  size_t colon = body.find(':');
  bool sdt_prefixed = body.starts_with("sdt_") && colon != std::string_view::npos;
  if (!percent && !sdt_prefixed) {
    // PROVIDER:NAME: two identifiers, the second not a line number.
    if (colon == std::string_view::npos || !is_c_identifier(body.substr(0, colon)) ||
        !is_c_identifier(body.substr(colon + 1)))
      return false;
  }
  size_t name_at = colon == std::string_view::npos ? 0 : colon + 1;
  std::string_view provider = colon == std::string_view::npos ? std::string_view{} : body.substr(0, colon);
  if ((percent || sdt_prefixed) && provider.starts_with("sdt_")) provider.remove_prefix(4);
  std::string_view name = body.substr(name_at);
  size_t body_col = col + (percent ? 1 : 0);
  if (colon != std::string_view::npos && !is_c_identifier(provider))
    return spec_error(spec, body_col, body_col + colon,
                      "'" + std::string(body.substr(0, colon)) + "' is not an SDT provider name",
                      "write an SDT marker as %sdt_PROVIDER:NAME (see them with 'kprobe-probe -x PROG -F --sdt')");
  if (!is_c_identifier(name))
    return spec_error(spec, body_col + name_at, col + rest.size(),
                      "'" + std::string(name) + "' is not an SDT marker name",
                      "write an SDT marker as %sdt_PROVIDER:NAME (see them with 'kprobe-probe -x PROG -F --sdt')");
  pp.sdt = true;
  pp.sdt_provider = std::string(provider);
  pp.sdt_name = std::string(name);
  return true;
}

// EVENT= or GROUP:EVENT= at the start of the point: an event name ends at
// the first '=' that comes before any other special. Returns where the rest
// of the point starts in `chars` (0 without one).
Result<size_t> parse_event_prefix(std::string_view spec, const std::vector<PointChar> &chars, ProbeSpec &out) {
  size_t first = find_special(chars, 0, "=@+%");
  if (first == chars.size() || chars[first].c != '=') return size_t{0};
  if (auto st = parse_event_part(spec, chars, first, out); !st) return std::move(st).error();
  return first + 1;
}

// Whether the point from `from` on is a source file (SRC:ALN, SRC;PTN), as
// perf decides: no '+', '@' or '%', and a '.' before ':' or ';' (one not
// nested in a C++ name's brackets).
bool is_file_point(const std::vector<PointChar> &chars, size_t from, bool has_lazy) {
  size_t colon = find_special(chars, from, ":");
  if (find_special(chars, from, "+@%") != chars.size() || (colon == chars.size() && !has_lazy)) return false;
  for (size_t i = from; i < colon; ++i)
    if (chars[i].c == '.' && !chars[i].nested) return true;
  return false;
}

// The point's head, before any ':', '+', '@' or '%': a source file, a raw
// address (0x...) or a function.
Status parse_point_head(std::string_view spec, bool file_point, PointParts &parts, ProbePoint &pp) {
  const Piece &head = parts.head;
  if (file_point) {
    pp.file = head.text;
    parts.file = head;
  } else if (head.text.starts_with("0x")) {
    uint64_t address = 0;
    if (!parse_c_number(head.text, address))
      return spec_error(spec, head.begin, head.end, "Invalid absolute address.",
                        "write a raw address as 0x followed by hexadecimal digits");
    pp.address = address;
  } else {
    pp.function = head.text;
  }
  return Ok{};
}

// The ":RLN", "+OFFS", "@SRC" and "%return" after the head, each from its
// sigil at chars[sep] to the next.
Status parse_segments(std::string_view spec, const std::vector<PointChar> &chars, size_t sep, PointParts &parts,
                      ProbePoint &pp) {
  while (sep < chars.size()) {
    size_t next = find_special(chars, sep + 1, ":+@%");
    Piece arg = make_piece(chars, sep + 1, next, chars[sep].col + 1);
    if (auto st = parse_segment(spec, chars[sep].c, chars[sep].col, arg, parts, pp); !st) return st;
    sep = next;
  }
  return Ok{};
}

// ";PTN": the pattern after ';', to the end of the point.
Status parse_lazy_pattern(std::string_view spec, const ScannedPoint &scanned, size_t end, PointParts &parts,
                          ProbePoint &pp) {
  size_t col = *scanned.lazy_col;
  if (scanned.lazy.empty())
    return spec_error(spec, col, col + 1, "lazy pattern is missing after ';'",
                      "write FUNC;PATTERN, e.g. 'schedule;update_rq_clock*'");
  pp.lazy_pattern = scanned.lazy;
  parts.lazy = Piece{scanned.lazy, col, end};
  return Ok{};
}

// Whether `name` ends as a source file's name does ("prog.c", "main.go"):
// a suffix the compilers this tool reads take as source.
bool has_source_suffix(std::string_view name) {
  static constexpr std::string_view suffixes[] = {"c", "h", "cc", "cp", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++",
                                                  "i", "ii", "s", "S", "inc", "def", "go", "rs", "m", "mm"};
  size_t dot = name.rfind('.');
  return dot != std::string_view::npos &&
         std::find(std::begin(suffixes), std::end(suffixes), name.substr(dot + 1)) != std::end(suffixes);
}

// "main.Split:0": perf reads it as SRC:0, a source file without a line
// (the check below refuses it). A name with a '.', no '/' and no source
// file's suffix is a function's (Go's "pkg.Func", "main.(*T).M"): FUNC:0,
// its entry. Other lines stay SRC:ALN, which the builder reads as FUNC:RLN
// when the program has no such source file (probe_builder.cpp).
void read_function_line_zero(PointParts &parts, ProbePoint &pp) {
  if (!parts.file || parts.file->begin != parts.head.begin || !parts.line || pp.line != 0 || parts.lazy || !pp.function.empty() || pp.address ||
      pp.file.find_first_of("/\\") != std::string::npos || has_source_suffix(pp.file))
    return;
  pp.function = std::move(pp.file);
  pp.file.clear();
  parts.file.reset();
}

}  // namespace

Status parse_point_token(std::string_view spec, size_t begin, size_t end, ProbeSpec &out) {
  auto scanned = scan_point(spec, begin, end);
  if (!scanned) return std::move(scanned).error();
  const std::vector<PointChar> &chars = scanned->chars;
  bool has_lazy = scanned->lazy_col.has_value();

  auto event_end = parse_event_prefix(spec, chars, out);
  if (!event_end) return std::move(event_end).error();
  size_t from = *event_end;
  if (from == chars.size() && !has_lazy)
    return spec_error(spec, end - 1, end, "the probe point is missing after '='",
                      "write EVENT=FUNC, EVENT=FUNC:LINE or EVENT=SRC:LINE");
  if (from < chars.size() && !has_lazy) {
    size_t col = chars[from].col;
    auto sdt = parse_sdt_point(spec, spec.substr(col, end - col), col, out.point);
    if (!sdt) return std::move(sdt).error();
    if (*sdt) return Ok{};
  }

  PointParts parts;
  ProbePoint &pp = out.point;
  size_t sep = find_special(chars, from, ":+@%");
  size_t head_col = from < chars.size() ? chars[from].col : (has_lazy ? *scanned->lazy_col : end);
  parts.head = make_piece(chars, from, sep, head_col);
  if (auto st = parse_point_head(spec, is_file_point(chars, from, has_lazy), parts, pp); !st) return st;
  if (auto st = parse_segments(spec, chars, sep, parts, pp); !st) return st;
  if (has_lazy)
    if (auto st = parse_lazy_pattern(spec, *scanned, end, parts, pp); !st) return st;
  read_function_line_zero(parts, pp);
  return check_combinations(spec, parts, pp);
}

}  // namespace kpp::spec_detail
