#include "src/hist/event_fields.h"

#include <sstream>

namespace kpp {

namespace {

bool is_string_type(const std::string &type) {
  return type.find("char[") != std::string::npos || type == "char *" || type == "const char *";
}

// "\tfield:__data_loc char[] name;\toffset:8;..." -> {"__data_loc char[]", "name"}.
bool field_of(const std::string &line, std::string &type, std::string &name) {
  size_t at = line.find("field:");
  if (at == std::string::npos) return false;
  size_t end = line.find(';', at);
  if (end == std::string::npos) return false;
  std::string decl = line.substr(at + 6, end - at - 6);
  // The name is the last word; an array's "[16]" after it belongs to the type.
  size_t bracket = decl.size();
  if (!decl.empty() && decl.back() == ']') bracket = decl.rfind('[');
  size_t space = decl.rfind(' ', bracket);
  if (space == std::string::npos || bracket == std::string::npos) return false;
  name = decl.substr(space + 1, bracket - space - 1);
  type = decl.substr(0, space) + (bracket < decl.size() ? "[]" : "");
  if (!name.empty() && name[0] == '*') {  // "char *name"
    type += " *";
    name.erase(0, 1);
  }
  return !name.empty();
}

}  // namespace

std::set<std::string> string_fields(const std::string &format) {
  std::set<std::string> out;
  std::istringstream in(format);
  std::string line, type, name;
  while (std::getline(in, line))
    if (field_of(line, type, name) && is_string_type(type)) out.insert(name);
  return out;
}

Status apply_event_fields(HistRequest &request, const std::string &format) {
  std::set<std::string> strings = string_fields(format);
  for (HistKey &key : request.keys) key.string = key.field != "comm" && strings.count(key.field) > 0;
  for (const std::string &sum : request.sums)
    if (strings.count(sum))
      return Error("--sum " + sum + ": '" + sum + "' is a string; the kernel would add up its addresses",
                   "count it with --by " + sum + " instead");
  return Ok{};
}

}  // namespace kpp
