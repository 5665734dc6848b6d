#include "event/field_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace kpp::output {

void append_number(std::string &out, uint64_t bits, bool is_signed, bool hex) {
  char buf[32];
  char *end;
  if (hex) {
    out += "0x";
    end = std::to_chars(buf, buf + sizeof buf, bits, 16).ptr;
  } else if (is_signed) {
    end = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(bits)).ptr;
  } else {
    end = std::to_chars(buf, buf + sizeof buf, bits).ptr;
  }
  out.append(buf, end);
}

namespace {

// The value of an x87 extended float (10 little-endian bytes); false where
// this host's long double is another format.
bool read_x87(std::string_view bytes, long double &value) {
#if defined(__x86_64__) || defined(__i386__)
  value = 0;
  std::memcpy(&value, bytes.data(), 10);
  return true;
#else
  (void)bytes;
  (void)value;
  return false;
#endif
}

}  // namespace

void append_float(std::string &out, uint64_t bits, unsigned bytes, std::string_view x87) {
  // Every float and double is exactly a long double: one way to print them all.
  long double value = 0;
  int digits = bytes == 4 ? 9 : bytes == 8 ? 17 : 21;
  if (bytes == 10) {
    if (x87.size() != 10) {
      out += "<an x87 long double without its bytes>";
      return;
    }
    if (!read_x87(x87, value)) {
      out += "<an x87 long double, which this host cannot read>";
      return;
    }
  } else {
    value = bytes == 4 ? static_cast<long double>(std::bit_cast<float>(static_cast<uint32_t>(bits)))
                       : static_cast<long double>(std::bit_cast<double>(bits));
  }
  if (std::isnan(value)) {
    out += std::signbit(value) ? "-nan" : "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*Lg", digits, value);
  out += buf;
}

void append_char(std::string &out, int64_t code) {
  append_number(out, static_cast<uint64_t>(code), true, false);
  auto c = static_cast<unsigned char>(code);
  out += " '";
  switch (c) {
    case '\a': out += "\\a"; break;  // gdb's escapes; \033 and the rest in octal
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\v': out += "\\v"; break;
    case '\'': out += "\\'"; break;
    case '\\': out += "\\\\"; break;
    default:
      if (c >= 0x20 && c < 0x7f) {
        out += static_cast<char>(c);
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\%03o", c);
        out += buf;
      }
  }
  out += '\'';
}

void append_bool(std::string &out, uint64_t value) {
  if (value <= 1) out += value ? "true" : "false";
  else append_number(out, value, false, false);
}

void append_cut(std::string &out, uint64_t whole_length) {
  out += "...(len=";
  out += std::to_string(whole_length);
  out += ')';
}

void append_array(std::string &out, const FieldValue &v, bool json) {
  out += json ? '[' : '{';
  for (size_t k = 0; k < v.items.size(); ++k) {
    if (k) out += ',';
    if (v.float_bytes) append_float(out, v.items[k], v.float_bytes);
    else append_number(out, v.items[k], v.items_signed, v.items_hex && !json);
  }
  out += json ? ']' : '}';
}

}  // namespace kpp::output
