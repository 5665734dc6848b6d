// ARG := [NAME=]VAR[->m|.m|[i]]...[:TYPE] | $retval | $params | $vars | $comm
//        | %REG[:TYPE] | @SYM[->m|.m|[i]]...[:TYPE] | RAWFETCH[:TYPE] (raw_fetch.h)
//
// As perf's parse_perf_probe_arg: NAME ends at the first '=', TYPE starts at
// the first ':' after it, and a chain is walked left to right.
#include <cctype>
#include <string>

#include "src/spec/arg_type.h"
#include "src/spec/raw_fetch.h"
#include "src/spec/spec_support.h"
#include "src/spec/spec_parts.h"

namespace kpp::spec_detail {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Length of the identifier at s[pos], 0 if there is none.
size_t ident_length(std::string_view s, size_t pos) {
  if (pos >= s.size() || !is_ident_start(s[pos])) return 0;
  size_t n = 1;
  while (pos + n < s.size() && is_ident_char(s[pos + n])) ++n;
  return n;
}

// Reads the ->m / .m / [i] chain in body[pos..]. `col` is body's column in spec.
Status parse_chain(std::string_view spec, std::string_view body, size_t pos, size_t col,
                   std::vector<ArgAccess> &chain) {
  while (pos < body.size()) {
    ArgAccess step;
    size_t at = col + pos;
    if (body[pos] == '[') {
      size_t close = body.find(']', pos);
      if (close == std::string_view::npos || !parse_c_number(body.substr(pos + 1, close - pos - 1), step.index))
        return spec_error(spec, at, close == std::string_view::npos ? col + body.size() : col + close + 1,
                          "Array index must be a number.", "write an index as [2] or [0x10]");
      step.kind = ArgAccess::Kind::Index;
      pos = close + 1;
    } else {
      size_t op_len = 0;
      if (body[pos] == '.') {
        step.kind = ArgAccess::Kind::Dot;
        op_len = 1;
      } else if (body.substr(pos, 2) == "->") {
        step.kind = ArgAccess::Kind::Arrow;
        op_len = 2;
      } else {
        return spec_error(spec, at, at + 1,
                          std::string("unexpected '") + body[pos] + "' in argument: expected '->', '.' or '['");
      }
      size_t n = ident_length(body, pos + op_len);
      if (n == 0)
        return spec_error(spec, at, at + op_len + (pos + op_len < body.size() ? 1 : 0),
                          "member name expected after '" + std::string(body.substr(pos, op_len)) + "'");
      step.member = std::string(body.substr(pos + op_len, n));
      pos += op_len + n;
    }
    chain.push_back(std::move(step));
  }
  return Ok{};
}

struct Special {
  std::string_view text;
  ProbeArg::Kind kind;
};
constexpr Special kSpecials[] = {
    {"$retval", ProbeArg::Kind::Retval},
    {"$params", ProbeArg::Kind::Params},
    {"$vars", ProbeArg::Kind::Vars},
    {"$comm", ProbeArg::Kind::Comm},
};

// Fills arg.kind, arg.base and arg.chain from VAR / $x / %REG / @SYM text.
Status parse_body(std::string_view spec, std::string_view body, size_t col, ProbeArg &arg) {
  if (is_raw_fetch(body)) {
    auto raw = parse_raw_fetch(body);
    if (!raw) {
      Span at = raw.error().span.value_or(Span{0, body.size()});
      return spec_error(spec, col + at.begin, col + at.end, raw.error().message, raw.error().hint);
    }
    arg.kind = ProbeArg::Kind::Raw;
    arg.base = std::string(body);
    return Ok{};
  }
  if (body[0] == '$') {
    size_t n = 1 + ident_length(body, 1);
    for (const Special &s : kSpecials) {
      if (body.substr(0, n) != s.text) continue;
      arg.kind = s.kind;
      if (n < body.size())
        return spec_error(spec, col + n, col + body.size(),
                          "'" + std::string(s.text) + "' can't be followed by '" +
                              std::string(body.substr(n)) + "'",
                          "only variables and @SYM take ->member, .member and [index]");
      return Ok{};
    }
    return spec_error(spec, col, col + n,
                      "unknown special variable '" + std::string(body.substr(0, n)) +
                          "': expected $retval, $params, $vars, $comm, $stack, $stackN or $argN");
  }
  size_t base_at = (body[0] == '%' || body[0] == '@') ? 1 : 0;
  size_t n = 0;
  if (body[0] == '%') {
    arg.kind = ProbeArg::Kind::Register;
    while (base_at + n < body.size() && is_ident_char(body[base_at + n])) ++n;
    if (n == 0)
      return spec_error(spec, col, col + 1, "register name expected after '%'", "write a register as %ax or %di");
    if (base_at + n < body.size())
      return spec_error(spec, col + base_at + n, col + body.size(),
                        "'" + std::string(body.substr(0, base_at + n)) + "' can't be followed by '" +
                            std::string(body.substr(base_at + n)) + "'",
                        "only variables and @SYM take ->member, .member and [index]");
    arg.base = std::string(body.substr(base_at, n));
    return Ok{};
  }
  arg.kind = body[0] == '@' ? ProbeArg::Kind::Symbol : ProbeArg::Kind::Variable;
  n = ident_length(body, base_at);
  // Go's unnamed results: "~r0", "~r1" (as Go's DWARF names them).
  if (n == 0 && arg.kind == ProbeArg::Kind::Variable && body[0] == '~' && ident_length(body, 1) > 0)
    n = 1 + ident_length(body, 1);
  if (n == 0) {
    if (arg.kind == ProbeArg::Kind::Symbol)
      return spec_error(spec, col, col + 1, "symbol name expected after '@'", "write a global as @jiffies");
    return spec_error(spec, col, col + body.size(),
                      "'" + std::string(body) + "' is not a variable, $retval, $params, $vars, $comm, %REG or @SYM",
                      "a variable name starts with a letter or '_'");
  }
  arg.base = std::string(body.substr(base_at, n));
  return parse_chain(spec, body, base_at + n, col, arg.chain);
}

}  // namespace

Result<ProbeArg> parse_arg_token(std::string_view spec, size_t begin, size_t end) {
  ProbeArg arg;
  std::string_view token = spec.substr(begin, end - begin);
  arg.text = std::string(token);
  arg.span = Span{begin, end};

  size_t body_at = 0;
  if (size_t eq = token.find('='); eq != std::string_view::npos) {
    if (eq == 0) return spec_error(spec, begin, begin + 1, "argument name is empty before '='");
    arg.name = std::string(token.substr(0, eq));
    if (!is_c_identifier(arg.name))
      return spec_error(spec, begin, begin + eq,
                        "'" + arg.name + "' is bad for an argument name: it must follow the C symbol-naming rule",
                        "use letters, digits and '_', not starting with a digit");
    body_at = eq + 1;
  }
  size_t body_end = token.size();
  if (size_t colon = token.find(':', body_at); colon != std::string_view::npos) {
    arg.type = std::string(token.substr(colon + 1));
    if (auto st = check_arg_type(arg.type); !st) {
      size_t type_begin = arg.type.empty() ? begin + colon : begin + colon + 1;
      return spec_error(spec, type_begin, end, std::move(st).error().message,
                        arg.type.empty() ? "write a type after ':', e.g. 'count:u64' or 'name:string'" : "");
    }
    body_end = colon;
  }
  if (body_end == body_at)
    return spec_error(spec, begin + body_at, begin + body_at + 1, "the argument has no variable",
                      "write [NAME=]VAR[:TYPE], e.g. 'len=count:u32'");

  std::string_view body = token.substr(body_at, body_end - body_at);
  if (auto st = parse_body(spec, body, begin + body_at, arg); !st) return std::move(st).error();

  bool expands = arg.kind == ProbeArg::Kind::Params || arg.kind == ProbeArg::Kind::Vars;
  if (expands && !arg.name.empty())
    return spec_error(spec, begin, begin + body_at - 1,
                      "'" + std::string(body) + "' can't be given a NAME: it expands to one argument per variable");
  if (expands && !arg.type.empty())
    return spec_error(spec, begin + body_end, end,
                      "'" + std::string(body) + "' can't be given a TYPE: it expands to one argument per variable");
  return arg;
}

}  // namespace kpp::spec_detail
