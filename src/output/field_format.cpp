#include "src/output/field_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>

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

void append_float(std::string &out, uint64_t bits, unsigned bytes) {
  double value = bytes == 4 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)))
                            : std::bit_cast<double>(bits);
  if (std::isnan(value)) {
    out += std::signbit(value) ? "-nan" : "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value < 0 ? "-inf" : "inf";
    return;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, bytes == 4 ? "%.9g" : "%.17g", value);
  out += buf;
}

void append_char(std::string &out, int64_t code) {
  append_number(out, static_cast<uint64_t>(code), true, false);
  auto c = static_cast<unsigned char>(code);
  out += " '";
  switch (c) {
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
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
