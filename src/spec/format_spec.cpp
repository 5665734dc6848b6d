// The inverse of parse_probe_spec: the text a user would type.
#include <cctype>
#include <cstdio>
#include <string>

#include "src/spec/cxx_point.h"
#include "src/spec/probe_spec.h"
#include "util/strings.h"

namespace kpp {
namespace {

// Whether (), <>, {} and [] in `name` pair up, as the point's parser reads a
// C++ name's brackets (an operator's own characters aside).
bool brackets_balance(const std::string &name) {
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (size_t op = spec_detail::operator_name_end(name, i); op != i) {
      i = op - 1;
      continue;
    }
    char c = name[i];
    if (c == '(' || c == '<' || c == '{' || c == '[') ++depth;
    if ((c == ')' || c == '>' || c == '}' || c == ']') && --depth < 0) return false;
  }
  return depth == 0;
}

// Backslash-escapes the characters the point syntax treats as special, so a
// name like `malloc_get_state@GLIBC_2.2.5` reads back as one name. C++'s
// "::" and operators ("operator+=") read back as they are.
// Where a name sits in the point: first (a function, or a file without
// '@', whose brackets the parser pairs up as a C++ name's), or after '@'.
enum class NamePlace { Head, AfterAt };

std::string escape_point_name(const std::string &name, NamePlace place = NamePlace::Head) {
  std::string out;
  // Brackets that do not pair (a file "(x.c") are escaped, or the parser
  // would read on to a closing one; so is white space outside brackets
  // (inside them it is a C++ name's). After '@' brackets are plain.
  bool balanced = place == NamePlace::AfterAt || brackets_balance(name);
  bool spaces_free = place == NamePlace::Head && balanced;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (size_t op = spaces_free ? spec_detail::operator_name_end(name, i) : i; op != i) {
      for (; i < op; ++i) {
        if (std::isspace(static_cast<unsigned char>(name[i]))) out += '\\';
        out += name[i];
      }
      --i;
      continue;
    }
    bool bracket = std::string_view("()<>{}[]").find(c) != std::string_view::npos;
    if (spaces_free && bracket) depth += (c == '(' || c == '<' || c == '{' || c == '[') ? 1 : -1;
    if ((!balanced && bracket) || (std::isspace(static_cast<unsigned char>(c)) && (!spaces_free || depth == 0))) {
      out += '\\';
      out += c;
      continue;
    }
    if (c == ':' && i + 1 < name.size() && name[i + 1] == ':') {
      out += "::";
      ++i;
      continue;
    }
    if (std::string_view("=@+%:;\\'\"").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string_view sigil(ProbeArg::Kind kind) {
  switch (kind) {
    case ProbeArg::Kind::Register: return "%";
    case ProbeArg::Kind::Symbol: return "@";
    default: return "";
  }
}

std::string_view special_name(ProbeArg::Kind kind) {
  switch (kind) {
    case ProbeArg::Kind::Retval: return "$retval";
    case ProbeArg::Kind::Params: return "$params";
    case ProbeArg::Kind::Vars: return "$vars";
    case ProbeArg::Kind::Comm: return "$comm";
    default: return "";
  }
}

}  // namespace

std::string format_probe_point(const ProbePoint &point) {
  if (point.sdt)
    return (point.sdt_provider.empty() ? "%" : "%sdt_" + point.sdt_provider + ":") + point.sdt_name;
  std::string out;
  bool has_function = !point.function.empty() || point.address;
  if (point.address) out = hex(*point.address);
  else out = escape_point_name(point.function);

  if (!has_function) {
    // SRC:ALN / SRC;PTN read back as a file only when SRC has a '.'; else say '@SRC'.
    bool at = point.file.find('.') == std::string::npos;
    if (at) out += '@';
    out += escape_point_name(point.file, at ? NamePlace::AfterAt : NamePlace::Head);
  } else if (!point.file.empty()) {
    out += '@' + escape_point_name(point.file, NamePlace::AfterAt);
  } else if (point.function.find('.') != std::string::npos &&
             (point.line != 0 || !point.lazy_pattern.empty())) {
    out += "@*";  // `f.isra:3` would read back as a file; '@*' keeps it a function
  }
  if (point.line != 0) out += ':' + std::to_string(point.line);
  if (point.offset) out += '+' + std::to_string(*point.offset);
  if (point.is_return) out += "%return";
  if (!point.lazy_pattern.empty()) out += ';' + point.lazy_pattern;
  // A point that starts "sdt_" and has a ':' reads back as an SDT event
  // (perf's is_sdt_event looks at the raw text); an escaped 's' does not.
  if (out.starts_with("sdt_")) out = "\\" + out;  // (not insert(0, ...): a gcc 12 -Wrestrict false alarm)
  return out;
}

std::string format_probe_arg(const ProbeArg &arg) {
  std::string out;
  if (!arg.name.empty()) out = arg.name + '=';
  std::string_view special = special_name(arg.kind);
  if (!special.empty()) {
    out += special;
  } else {
    out += sigil(arg.kind);
    out += arg.base;
    for (const ArgAccess &step : arg.chain) {
      switch (step.kind) {
        case ArgAccess::Kind::Arrow: out += "->" + step.member; break;
        case ArgAccess::Kind::Dot: out += '.' + step.member; break;
        case ArgAccess::Kind::Index: out += '[' + std::to_string(step.index) + ']'; break;
      }
    }
  }
  if (!arg.type.empty()) out += ':' + arg.type;
  return out;
}

std::string format_probe_spec(const ProbeSpec &spec) {
  std::string out;
  if (!spec.event.empty()) {
    if (!spec.group.empty()) out = spec.group + ':';
    out += spec.event + '=';
  }
  out += format_probe_point(spec.point);
  for (const ProbeArg &arg : spec.args) out += ' ' + format_probe_arg(arg);
  return out;
}

}  // namespace kpp
