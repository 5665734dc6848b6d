// Short constructors for expected ProbeSpec values in the test tables.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "src/spec/probe_spec.h"

namespace kpp::test {

inline ArgAccess arrow(std::string m) { return {ArgAccess::Kind::Arrow, std::move(m), 0}; }
inline ArgAccess dot(std::string m) { return {ArgAccess::Kind::Dot, std::move(m), 0}; }
inline ArgAccess idx(int64_t i) { return {ArgAccess::Kind::Index, {}, i}; }

inline ProbeArg var(std::string base, std::vector<ArgAccess> chain = {}, std::string type = {},
                    std::string name = {}) {
  ProbeArg a;
  a.kind = ProbeArg::Kind::Variable;
  a.base = std::move(base);
  a.chain = std::move(chain);
  a.type = std::move(type);
  a.name = std::move(name);
  return a;
}

inline ProbeArg special(ProbeArg::Kind kind, std::string type = {}, std::string name = {}) {
  ProbeArg a;
  a.kind = kind;
  a.type = std::move(type);
  a.name = std::move(name);
  return a;
}

inline ProbeArg reg(std::string r, std::string type = {}, std::string name = {}) {
  ProbeArg a = special(ProbeArg::Kind::Register, std::move(type), std::move(name));
  a.base = std::move(r);
  return a;
}

inline ProbeArg sym(std::string s, std::vector<ArgAccess> chain = {}, std::string type = {}) {
  ProbeArg a = special(ProbeArg::Kind::Symbol, std::move(type));
  a.base = std::move(s);
  a.chain = std::move(chain);
  return a;
}

// Drops what the parser records about the typed text (text, spans), so two
// specs compare by meaning.
inline ProbeSpec meaning(ProbeSpec s) {
  s.text.clear();
  for (ProbeArg &a : s.args) {
    a.text.clear();
    a.span = Span{};
  }
  return s;
}

}  // namespace kpp::test

namespace kpp {

// gtest prints values with PrintTo: show every field, not the formatter's
// view of them, so a failure shows what the parser really produced.
inline void PrintTo(const ProbeSpec &s, std::ostream *os) {
  const ProbePoint &p = s.point;
  *os << "{group='" << s.group << "' event='" << s.event << "' function='" << p.function
      << "' file='" << p.file << "' line=" << p.line << " offset="
      << (p.offset ? std::to_string(*p.offset) : "none") << " return=" << p.is_return << " lazy='"
      << p.lazy_pattern << "' address=" << (p.address ? std::to_string(*p.address) : "none") << " args=[";
  for (const ProbeArg &a : s.args) {
    *os << " {kind=" << static_cast<int>(a.kind) << " name='" << a.name << "' base='" << a.base
        << "' chain=";
    for (const ArgAccess &c : a.chain)
      *os << (c.kind == ArgAccess::Kind::Index ? "[" + std::to_string(c.index) + "]"
                                                : (c.kind == ArgAccess::Kind::Dot ? "." : "->") + c.member);
    *os << " type='" << a.type << "'}";
  }
  *os << " ]}";
}

}  // namespace kpp
