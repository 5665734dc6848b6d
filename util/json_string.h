// JSON string literals, written the same way by every JSON a user reads
// (event lines, --list --json, hist tables): quotes and backslashes escaped,
// control bytes as \uXXXX, valid UTF-8 kept, any other byte as \u00XX so
// that the output stays valid JSON whatever the input.
#pragma once

#include <string>
#include <string_view>

namespace kpp {

// Appends `s` to `out` as a JSON string literal, quotes included.
void append_json_string(std::string &out, std::string_view s);

// `s` as a JSON string literal, quotes included: a"b -> "a\"b".
std::string json_quote(std::string_view s);

}  // namespace kpp
