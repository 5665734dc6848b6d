// Small string helpers shared by the libraries: hex numbers, joined lists and
// file names, written the same way everywhere a user sees them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kpp {

// `v` as lower-case hex with a 0x prefix and no padding: 4201 -> "0x1069", 0 -> "0x0".
std::string hex(uint64_t v);

// Bytes as lower-case hex, two digits each, no prefix: "\x1a\x2b" -> "1a2b"
// (build-ids, checksums).
std::string hex_bytes(std::string_view bytes);

// The items with `sep` between them: {"a", "b"} -> "a, b"; {} -> "".
std::string join(const std::vector<std::string> &items, const std::string &sep = ", ");

// The part of `path` after its last '/': "/usr/bin/prog" -> "prog"; a path
// without '/' is returned whole, and one ending in '/' gives "".
std::string basename_of(const std::string &path);

// A signal's name as kill -l spells it, with its SIG prefix: SIGSEGV ->
// "SIGSEGV"; one without a name -> "signal 77".
std::string signal_name(int sig);

}  // namespace kpp
