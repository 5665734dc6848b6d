// ProbeSpec: a probe as the user typed it, in perf probe's syntax.
//
//   [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return|;PTN] [ARG ...]
//   [[GROUP:]EVENT=]SRC:ALN [ARG ...]
//   [[GROUP:]EVENT=]SRC;PTN [ARG ...]
//   [[GROUP:]EVENT=]%[sdt_]PROVIDER:NAME | sdt_PROVIDER:NAME | %NAME | PROVIDER:NAME [argN ...]
//   ARG := [NAME=]VAR[->m|.m|[i]]...[:TYPE] | $retval | $params | $vars | $comm
//          | %REG[:TYPE] | @SYM[->m|.m|[i]]...[:TYPE]
//          | [NAME=]RAWFETCH[:TYPE]   (+OFF(%REG), $stackN, $argN, @ADDR...: raw_fetch.h)
//
// This is the user-level model; what the kernel is given is a
// TraceDefinition (src/definition). Building one never touches the system.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace kpp {

// One step of an access chain after the base variable.
struct ArgAccess {
  enum class Kind { Arrow, Dot, Index };  // ->member, .member, [index]
  Kind kind = Kind::Arrow;
  std::string member;  // Arrow, Dot
  int64_t index = 0;   // Index
  bool operator==(const ArgAccess &) const = default;
};

struct ProbeArg {
  enum class Kind {
    Variable,  // a local, parameter or global named in DWARF: `p`, `p->name`
    Retval,    // $retval (return probes only)
    Params,    // $params: every formal parameter
    Vars,      // $vars: every local and parameter in scope
    Comm,      // $comm: the current task's name
    Register,  // %REG, given raw to the kernel
    Symbol,    // @SYM: a global by name
    Raw,       // the kernel's fetch-arg syntax (src/spec/raw_fetch.h): `base` holds it, "+8(%di)"
  };
  Kind kind = Kind::Variable;
  std::string name;               // explicit NAME=, else empty
  std::string base;               // variable, register (without %) or symbol (without @)
  std::vector<ArgAccess> chain;   // ->m, .m, [i] after the base
  std::string type;               // the text after ':' (u32, string, x64, b4@2/32, u8[4]...), else empty
  std::string text;               // the argument exactly as typed, for --list "with ..."
  Span span;                      // where `text` sits in ProbeSpec::text
  bool operator==(const ProbeArg &) const = default;
};

struct ProbePoint {
  std::string function;           // FUNC; empty for SRC:ALN and SRC;PTN
  std::string file;               // @SRC, or the SRC of SRC:ALN / SRC;PTN
  int line = 0;                   // RLN (relative to FUNC's first line) or, without FUNC, ALN
  std::optional<uint64_t> offset; // +OFFS from the function's entry
  bool is_return = false;         // %return
  std::string lazy_pattern;       // ;PTN
  std::optional<uint64_t> address;// a raw address (0x...) in place of FUNC
  // An SDT (USDT) marker in place of all the above: %[sdt_]PROVIDER:NAME,
  // sdt_PROVIDER:NAME, %NAME (any provider) or PROVIDER:NAME (NAME not a number).
  bool sdt = false;
  std::string sdt_provider;       // empty: any provider
  std::string sdt_name;
  bool operator==(const ProbePoint &) const = default;
};

struct ProbeSpec {
  std::string group;              // GROUP: given explicitly, else empty (the default is chosen later)
  std::string event;              // EVENT= given explicitly, else empty
  ProbePoint point;
  std::vector<ProbeArg> args;
  std::string text;               // the whole spec as typed
  bool operator==(const ProbeSpec &) const = default;
};

// Parses one spec. Errors carry the spec as Error::source and the offending
// columns as Error::span, so the caller can draw a caret under them.
Result<ProbeSpec> parse_probe_spec(std::string_view text);

// One command's spec, parsed once before the target is opened (which asks
// whether the specs read locations, or are all SDT markers) and planned:
// the text as given, and its model or why it does not parse (reported
// where the command reports it, when it is planned).
struct ParsedSpec {
  std::string text;
  Result<ProbeSpec> spec;
};
using ParsedSpecs = std::vector<ParsedSpec>;
ParsedSpecs parse_probe_specs(const std::vector<std::string> &texts);

// The inverse of parse_probe_spec: perf syntax, the same text a user would type.
// parse_probe_spec(format_probe_spec(s)) == s up to whitespace and Span/text.
std::string format_probe_spec(const ProbeSpec &spec);
std::string format_probe_point(const ProbePoint &point);
std::string format_probe_arg(const ProbeArg &arg);

// The default field name perf gives an argument (REFERENCE.md 1.3): the explicit
// NAME, else the last member of a chain (`p->name` -> `name`), else the variable
// with ':' turned into '_' (`flags:x32` -> `flags_x32`); empty for raw
// expressions ($retval, %REG, @SYM, $comm), which the caller names argN.
std::string default_arg_name(const ProbeArg &arg);

// Whether a probe point's FUNC (as parsed: spaces dropped) is a glob over
// function names ("wal*", "vfs_?ead"): it has '*' or '?' outside a C++
// name's parameter list and template arguments, and not in the last
// component of an operator's name (a pointer in "f(char const*)",
// "operator char const*()" and the operator "operator*" are not globs).
bool is_function_glob(std::string_view function);

}  // namespace kpp
