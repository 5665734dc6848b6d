#include "src/definition/definition_text.h"

#include <cstdio>

namespace kpp {

namespace {

// The kernel's isspace() (lib/ctype.c): ASCII blanks and Latin-1's 0xa0.
bool kernel_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0; }

std::string describe_byte(unsigned char c) {
  switch (c) {
    case ' ': return "a space";
    case '\n': return "a newline";
    case '\t': return "a tab";
    case '\r': return "a carriage return";
    case '#': return "'#' (the kernel reads the rest of the line as a comment)";
    case 0xa0: return "the byte 0xa0 (the kernel takes it for a space; it is part of some UTF-8 letters)";
    default: {
      char buf[48];
      std::snprintf(buf, sizeof buf, "the control byte 0x%02x", c);
      return buf;
    }
  }
}

Status check_word(const std::string &what, std::string_view text) {
  if (std::string problem = word_problem(text); !problem.empty())
    return Error(what + " '" + printable(text) + "' " + problem, "the kernel would not read it as one word");
  return Ok{};
}

Status check_name(const std::string &what, std::string_view name) {
  if (is_kernel_name(name)) return Ok{};
  return Error(what + " '" + printable(name) + "' is not a name the kernel takes",
               "names are letters, digits and '_', not starting with a digit, at most 63 bytes");
}

}  // namespace

std::string word_problem(std::string_view text) {
  if (text.empty()) return "is empty";
  for (unsigned char c : text) {
    if (kernel_space(c) || c == '#' || c < 0x20 || c == 0x7f) return "contains " + describe_byte(c);
  }
  return {};
}

bool is_kernel_name(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c == '\\') out += "\\\\";
    else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Status check_probe_path(const std::string &path) {
  if (Status s = check_word("the path", path); !s)
    return Error(s.error().message, "the kernel would split it; give a path without it (a symlink to the file works: "
                                    "the kernel follows it)");
  if (path[0] != '/') return Error("the path '" + printable(path) + "' is not absolute");
  return Ok{};
}

Status check_definition_text(const TraceDefinition &def) {
  if (def.kind == TraceDefinition::Kind::Uprobe) {
    if (Status s = check_probe_path(def.path); !s) return s;
  } else if (!def.symbol.empty()) {
    if (Status s = check_word("the symbol", def.symbol); !s) return s;
  }
  if (Status s = check_name("the group", def.group); !s) return s;
  if (Status s = check_name("the event", def.event); !s) return s;
  for (const FetchArg &arg : def.args) {
    std::string field = field_name_with_fixup(arg.name, arg.fixup);
    if (Status s = check_name("the argument name", field); !s) return s;
    if (Status s = check_word("the fetch-arg of " + arg.name, arg.fetch); !s) return s;
    if (!arg.type.empty())
      if (Status s = check_word("the type of " + arg.name, arg.type); !s) return s;
  }
  if (size_t n = format_definition(def).size(); n > max_definition_line)
    return Error("the definition of " + def.qualified_name() + " is " + std::to_string(n) +
                     " bytes long; the kernel reads at most " + std::to_string(max_definition_line),
                 "fewer arguments, or a shorter path");
  return Ok{};
}

}  // namespace kpp
