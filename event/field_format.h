// Shared by the text and JSON printers: how a number-ish field value is
// written. Internal to kpp_output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "event/event.h"

namespace kpp::output {

// Appends one number: decimal (signed or unsigned) or 0x-prefixed hex.
void append_number(std::string &out, uint64_t bits, bool is_signed, bool hex);

// Appends a Float value as gdb prints it: %.9g for 4 bytes, %.17g for 8
// (enough digits to read the same bits back); "inf", "-inf", "nan". For
// 10 bytes (an x87 long double), `x87` holds them and %.21Lg is used.
void append_float(std::string &out, uint64_t bits, unsigned bytes, std::string_view x87 = {});

// Appends a Char value as gdb prints one: its code and the character,
// escaped as C escapes it (120 'x', 10 '\n', 0 '\000').
void append_char(std::string &out, int64_t code);
// Appends a Bool value: false, true, or another number as itself.
void append_bool(std::string &out, uint64_t value);

// Appends what follows a value shown in part (FieldValue::cut_from): "..."
// and the whole length, "...(len=100)".
void append_cut(std::string &out, uint64_t whole_length);

// Appends the elements of an Array value as "{1,2,3}" (text) or "[1,2,3]"
// (JSON); hex elements in JSON are plain numbers.
void append_array(std::string &out, const FieldValue &v, bool json);

}  // namespace kpp::output
