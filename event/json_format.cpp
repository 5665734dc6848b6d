#include "event/json_format.h"

#include <cstdio>

#include "event/field_format.h"
#include "util/json_string.h"

namespace kpp {

namespace {

void append_json_value(std::string &out, const FieldValue &v) {
  if (v.absent) {  // an optional value that holds none; one that does is its value
    out += "null";
    return;
  }
  switch (v.kind) {
    case FieldKind::Signed: output::append_number(out, static_cast<uint64_t>(v.i), true, false); break;
    case FieldKind::Unsigned:
    case FieldKind::Hex: output::append_number(out, v.u, false, false); break;
    case FieldKind::String: append_json_string(out, v.text); break;
    case FieldKind::Array: output::append_array(out, v, true); break;
    case FieldKind::Bool: output::append_bool(out, v.u); break;  // true, false: JSON's own
    // A char is a number in JSON, as gdb's value is (198 for gdb's 198 '\306'): a
    // one-character string would turn a byte past 127 into another character.
    case FieldKind::Char: output::append_number(out, static_cast<uint64_t>(v.i), true, false); break;
    // An enum is its number, as a char is; gdb's name for it goes in "names".
    // Signed by its type: an unsigned 8-byte enum's bit 63 is no minus sign.
    case FieldKind::Enum: output::append_number(out, v.u, v.items_signed && v.i < 0, false); break;
    case FieldKind::Float: {
      // JSON has no inf or nan: those are strings.
      std::string number;
      output::append_float(number, v.u, v.float_bytes, v.text);
      if (number.find_first_of("in") != std::string::npos) append_json_string(out, number);
      else out += number;
      break;
    }
    case FieldKind::Bytes:
      out += '[';
      for (size_t k = 0; k < v.text.size(); ++k) {
        if (k) out += ',';
        out += std::to_string(static_cast<unsigned char>(v.text[k]));
      }
      out += ']';
      break;
  }
}

// ,"names":{"c":"GREEN","p":"(A | B)"}: how gdb names each enumeration's
// number (the fields keep the numbers); nothing when no field is one.
void append_names_json(std::string &out, const std::vector<Field> &fields) {
  bool any = false;
  for (const auto &f : fields) {
    if (f.value.kind != FieldKind::Enum || f.value.text.empty()) continue;
    out += any ? "," : ",\"names\":{";
    any = true;
    append_json_string(out, f.name);
    out += ':';
    append_json_string(out, f.value.text);
  }
  if (any) out += '}';
}

// ,"stack":[{"ip":"0x..","sym":"b","off":28,"file":"f.c","line":12,"inlined":false,
// "user":true,"object":"/path"},...]: unknown values are null ("off" too for
// inlined frames), "object" only when known.
void append_stack_json(std::string &out, const std::vector<StackFrame> &stack) {
  out += ",\"stack\":[";
  char buf[40];
  for (size_t i = 0; i < stack.size(); ++i) {
    const StackFrame &f = stack[i];
    if (i) out += ',';
    std::snprintf(buf, sizeof buf, "{\"ip\":\"0x%llx\",\"sym\":", static_cast<unsigned long long>(f.ip));
    out += buf;
    if (f.sym.empty()) out += "null";
    else append_json_string(out, f.sym);
    out += ",\"off\":";
    out += f.sym.empty() || f.inlined ? "null" : std::to_string(f.off);
    out += ",\"file\":";
    if (f.file.empty()) out += "null";
    else append_json_string(out, f.file);
    out += ",\"line\":";
    out += f.line > 0 ? std::to_string(f.line) : "null";
    out += f.inlined ? ",\"inlined\":true" : ",\"inlined\":false";
    out += f.user ? ",\"user\":true" : ",\"user\":false";
    if (!f.object.empty()) {
      out += ",\"object\":";
      append_json_string(out, f.object);
    }
    out += '}';
  }
  out += ']';
}

}  // namespace

std::string format_event_json(const Event &e) {
  std::string out;
  out.reserve(192);
  out += "{\"time_ns\":";
  out += std::to_string(e.time_ns);
  char t[48];
  std::snprintf(t, sizeof t, ",\"time\":\"%llu.%09llu\"", static_cast<unsigned long long>(e.time_ns / 1000000000ull),
                static_cast<unsigned long long>(e.time_ns % 1000000000ull));
  out += t;
  out += ",\"cpu\":";
  out += std::to_string(e.cpu);
  out += ",\"comm\":";
  append_json_string(out, e.comm);
  out += ",\"pid\":";
  out += std::to_string(e.pid);
  if (e.ns_pid) {
    out += ",\"ns_pid\":";
    out += std::to_string(e.ns_pid);
  }
  out += ",\"event\":";
  append_json_string(out, e.system + ":" + e.name);
  if (e.probe_ip) {
    std::snprintf(t, sizeof t, ",\"ip\":\"0x%llx\"", static_cast<unsigned long long>(e.probe_ip));
    out += t;
  }
  if (!e.site.empty()) {
    out += ",\"site\":";
    append_json_string(out, e.site);
  }
  out += ",\"fields\":{";
  bool first = true;
  for (const auto &f : e.fields) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, f.name);
    out += ':';
    append_json_value(out, f.value);
  }
  out += '}';
  // Values shown in part (a counted string's first bytes, a sequence's
  // first elements): each one's whole length, so the values keep their type.
  bool any_cut = false;
  for (const auto &f : e.fields) {
    if (!f.value.cut_from) continue;
    out += any_cut ? "," : ",\"cut\":{";
    any_cut = true;
    append_json_string(out, f.name);
    out += ':';
    out += std::to_string(f.value.cut_from);
  }
  if (any_cut) out += '}';
  append_names_json(out, e.fields);
  if (!e.stack.empty()) append_stack_json(out, e.stack);
  out += '}';
  return out;
}

}  // namespace kpp
