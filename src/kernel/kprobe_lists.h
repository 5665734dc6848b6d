// The kernel's kprobe bookkeeping in debugfs: kprobes/blacklist (what can
// never be probed) and kprobes/list (every registered kprobe and its state).
// Parsers take the text, so tests need no kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/definition/trace_definition.h"

namespace kpp {

// "0xffffffff81e00000-0xffffffff81e00040\tentry_SYSCALL_64[ [module]]"
struct BlacklistEntry {
  uint64_t start = 0, end = 0;  // zero when the reader may not see addresses
  std::string symbol;
  std::string module;  // empty for vmlinux
};
std::vector<BlacklistEntry> parse_kprobe_blacklist(const std::string &text);

// "ffffffff8113a3e0  k  vfs_read+0x0    [DISABLED][FTRACE]"
// "ffffffffc02a1230  r  lo_ioctl+0x0  loop [GONE]"
struct KprobeStatus {
  char type = 'k';      // k (kprobe), r (kretprobe), f (fprobe)
  std::string symbol;
  uint64_t offset = 0;
  std::string module;   // empty for vmlinux
  std::vector<std::string> flags;  // "GONE", "DISABLED", "OPTIMIZED", "FTRACE"
};
std::vector<KprobeStatus> parse_kprobe_list(const std::string &text);

// The status line of `def`'s probe point, when the kernel lists one: matched
// by kind (k/r), module, symbol and offset. Several probes at one place share
// the kernel's state, so the first match is as good as any.
std::optional<KprobeStatus> status_of(const std::vector<KprobeStatus> &list, const TraceDefinition &def);

// Reads a debugfs file under kprobes/ (mounting debugfs at /sys/kernel/debug
// when it is not and we are root); nullopt when it cannot be read.
std::optional<std::string> read_kprobes_debugfs(const std::string &name);

}  // namespace kpp
