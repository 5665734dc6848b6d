#include "event/text_format.h"

#include <cstdio>

#include "event/field_format.h"

namespace kpp {

namespace {

void append_quoted(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void append_plain(std::string &out, const FieldValue &v) {
  switch (v.kind) {
    case FieldKind::Signed: output::append_number(out, static_cast<uint64_t>(v.i), true, false); break;
    case FieldKind::Unsigned: output::append_number(out, v.u, false, false); break;
    case FieldKind::Hex: output::append_number(out, v.u, false, true); break;
    case FieldKind::String: append_quoted(out, v.text); break;
    case FieldKind::Array: output::append_array(out, v, false); break;
    case FieldKind::Float: output::append_float(out, v.u, v.float_bytes, v.text); break;
    case FieldKind::Bool: output::append_bool(out, v.u); break;
    case FieldKind::Char: output::append_char(out, v.i); break;
    case FieldKind::Enum:  // gdb's name for it, else the number
      if (v.text.empty()) output::append_number(out, v.u, v.items_signed && v.i < 0, false);
      else out += v.text;
      break;
    case FieldKind::Bytes: {
      out += '"';
      char buf[8];
      for (unsigned char c : v.text) {
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
      }
      out += '"';
      break;
    }
  }
  if (v.cut_from) output::append_cut(out, v.cut_from);
}

// An optional value as its language's debugger shows it (FieldValue::optional):
// gdb with libstdc++'s printer, {[contained value] = 5} and [no contained
// value] (the type's name left out); Rust's Some(5) and None.
void append_value(std::string &out, const FieldValue &v) {
  if (!v.optional) return append_plain(out, v);
  bool rust = v.optional == 2;
  if (v.absent) {
    out += rust ? "None" : "[no contained value]";
    return;
  }
  out += rust ? "Some(" : "{[contained value] = ";
  append_plain(out, v);
  out += rust ? ")" : "}";
}

}  // namespace

void append_fields_text(std::string &out, const Event &event) {
  bool first = true;
  for (const auto &f : event.fields) {
    if (!first) out += ' ';
    first = false;
    out += f.name;
    out += '=';
    append_value(out, f.value);
  }
}

std::string format_event_text(const Event &e) {
  std::string out;
  out.reserve(128);
  char head[64];
  std::snprintf(head, sizeof head, "%6llu.%09llu [%03d] ",
                static_cast<unsigned long long>(e.time_ns / 1000000000ull),
                static_cast<unsigned long long>(e.time_ns % 1000000000ull), e.cpu);
  out += head;
  out += e.comm;
  out += '-';
  out += std::to_string(e.pid);
  // A -p target in another pid namespace: its pid there too (NSpid), in
  // one word so that the line keeps its columns.
  if (e.ns_pid) {
    out += "(container:";
    out += std::to_string(e.ns_pid);
    out += ')';
  }
  out += ' ';
  out += e.system;
  out += ':';
  out += e.name;
  if (!e.fields.empty()) {
    out += ' ';
    append_fields_text(out, e);
  }
  return out;
}

std::string format_event_short(const Event &e) {
  std::string out = e.name;
  out += ':';
  if (!e.fields.empty()) {
    out += ' ';
    append_fields_text(out, e);
  }
  return out;
}

}  // namespace kpp
