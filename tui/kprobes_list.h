// The kernel's own view of its kprobes (debugfs kprobes/list): which are
// optimized into jumps, which ride on ftrace, which are gone (their module
// unloaded). The live view's status column shows these flags.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace kpp::tui {

struct KprobeFlags {
  bool gone = false;
  bool optimized = false;
  bool ftrace = false;
  bool disabled = false;
};

// Parses lines like
//   "ffffffff8134a5e0  k  vfs_read+0x0  [FTRACE]"
//   "ffffffffc0a01000  r  foo_exit+0x0  [foo_mod] [GONE]"
// into flags keyed by "symbol+0xoffset" (a later line for the same place
// adds its flags). Lines that do not parse are skipped.
std::map<std::string, KprobeFlags> parse_kprobes_list(std::string_view text);

}  // namespace kpp::tui
