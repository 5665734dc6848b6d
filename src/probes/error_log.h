// tracefs error_log: the kernel's reasons for refused commands, each entry
//
//   [  156.237445] trace_uprobe: error: File not found
//     Command: p:g/e /nonexistent:0x10
//                ^
//
// A refusal is explained with the entry whose command is OUR command and
// that was not there before we wrote it, never with the log's last line
// (another program's older error).
#pragma once

#include <string>
#include <vector>

namespace kpp {

struct ErrorLogEntry {
  std::string header;   // "[  156.237445] trace_uprobe: error: File not found"
  std::string reason;   // "File not found"
  std::string command;  // "p:g/e /nonexistent:0x10"
  bool operator==(const ErrorLogEntry &) const = default;
};

std::vector<ErrorLogEntry> parse_error_log(const std::string &text);

// The reason of the newest entry of `after` for `command` that `before`
// does not hold; "" when the kernel logged none.
std::string reason_for_command(const std::vector<ErrorLogEntry> &before, const std::vector<ErrorLogEntry> &after,
                               const std::string &command);

}  // namespace kpp
