#include "event/stack_format.h"

#include <cstdio>


namespace kpp {

std::string frame_label(const StackFrame &f) {
  char buf[40];
  if (f.sym.empty()) {
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(f.ip));
    return buf;
  }
  if (f.inlined) return f.sym + " (inlined)";
  std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(f.off));
  return f.sym + buf;
}

std::string format_frame_text(const StackFrame &f) {
  char ip[24];
  std::snprintf(ip, sizeof ip, "%016llx ", static_cast<unsigned long long>(f.ip));
  std::string out = ip;
  out += frame_label(f);
  if (!f.file.empty()) {
    out += ' ';
    out += f.file;
    if (f.line > 0) out += ':' + std::to_string(f.line);
  } else if (!f.object.empty()) {
    out += f.object[0] == '[' ? " " + f.object : " [" + f.object + "]";
  }
  return out;
}

}  // namespace kpp
