// The inverse of parse_probe_spec: the text a user would type.
#include <cstdio>
#include <string>

#include "src/spec/probe_spec.h"

namespace kpp {
namespace {

// Backslash-escapes the characters the point syntax treats as special, so a
// name like `malloc_get_state@GLIBC_2.2.5` reads back as one name. C++'s
// "::" reads back as it is.
std::string escape_point_name(const std::string &name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
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

std::string hex(uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
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
    if (point.file.find('.') == std::string::npos) out += '@';
    out += escape_point_name(point.file);
  } else if (!point.file.empty()) {
    out += '@' + escape_point_name(point.file);
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
