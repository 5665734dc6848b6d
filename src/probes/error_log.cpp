#include "src/probes/error_log.h"

#include <algorithm>
#include <sstream>

namespace kpp {

std::vector<ErrorLogEntry> parse_error_log(const std::string &text) {
  std::vector<ErrorLogEntry> entries;
  std::istringstream lines(text);
  constexpr std::string_view command_prefix = "  Command: ";
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '[') {
      ErrorLogEntry e;
      e.header = line;
      if (size_t at = line.find("error: "); at != std::string::npos) e.reason = line.substr(at + 7);
      else if (size_t close = line.find("] "); close != std::string::npos) e.reason = line.substr(close + 2);
      entries.push_back(std::move(e));
    } else if (line.compare(0, command_prefix.size(), command_prefix) == 0 && !entries.empty()) {
      entries.back().command = line.substr(command_prefix.size());
    }
  }
  return entries;
}

std::string reason_for_command(const std::vector<ErrorLogEntry> &before, const std::vector<ErrorLogEntry> &after,
                               const std::string &command) {
  for (auto it = after.rbegin(); it != after.rend(); ++it)
    if (it->command == command && std::find(before.begin(), before.end(), *it) == before.end()) return it->reason;
  return {};
}

}  // namespace kpp
