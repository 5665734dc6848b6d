// C++ names as -F (and c++filt, and perf) print them, inside a probe spec:
// `std::__throw_length_error(char const*)`, `int ns::biggest<int>(int, int)`,
// `ns::Box::area(int) const`, `std::operator<<(std::ostream&, char const*)`.
// Their spaces and operator characters are part of the name, not separators
// or the point's special characters. Internal to src/spec.
#pragma once

#include <cstddef>
#include <string_view>

namespace kpp::spec_detail {

// When text[i] starts the keyword `operator` (not inside a longer word), the
// end of the operator's name: "operator<<", "operator()", "operator new[]",
// "operator< " before "<int>"; else i.
size_t operator_name_end(std::string_view text, size_t i);

// The end of the probe point that starts at text[begin]: the first white
// space outside quotes and (...), <...>, {...}; with a C++ name as printed,
// the end of its parameter list and qualifiers (" const"), a return type
// before the name included. A lazy pattern (';') ends at white space.
size_t point_token_end(std::string_view text, size_t begin);

// Where the name starts in that point: past the words of a return type
// ("int ", "auto ", "decltype(a - b) "), which name nothing and are dropped;
// `begin` when the point has no such words (an "EVENT=" stays with them).
size_t point_name_begin(std::string_view text, size_t begin);

}  // namespace kpp::spec_detail
