#include "src/output/field_format.h"

#include <charconv>

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

void append_array(std::string &out, const FieldValue &v, bool json) {
  out += json ? '[' : '{';
  for (size_t k = 0; k < v.items.size(); ++k) {
    if (k) out += ',';
    append_number(out, v.items[k], v.items_signed, v.items_hex && !json);
  }
  out += json ? ']' : '}';
}

}  // namespace kpp::output
