#include "src/kernel/kprobe_lists.h"

#include <sys/mount.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <tuple>

#include "util/files.h"

namespace kpp {

namespace {

uint64_t parse_hex(const std::string &s) { return std::strtoull(s.c_str(), nullptr, 16); }

// "vfs_read+0x1c" -> {"vfs_read", 0x1c}
std::pair<std::string, uint64_t> split_symbol_offset(const std::string &word) {
  size_t plus = word.rfind('+');
  if (plus == std::string::npos) return {word, 0};
  return {word.substr(0, plus), parse_hex(word.substr(plus + 1))};
}

// Splits a kernel "module:symbol" into its parts.
std::pair<std::string, std::string> module_and_symbol(const std::string &symbol) {
  size_t colon = symbol.find(':');
  if (colon == std::string::npos) return {"", symbol};
  return {symbol.substr(0, colon), symbol.substr(colon + 1)};
}

}  // namespace

std::vector<BlacklistEntry> parse_kprobe_blacklist(const std::string &text) {
  std::vector<BlacklistEntry> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string range, symbol, module;
    if (!(words >> range >> symbol)) continue;
    words >> module;
    size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    BlacklistEntry e;
    e.start = parse_hex(range.substr(0, dash));
    e.end = parse_hex(range.substr(dash + 1));
    e.symbol = symbol;
    if (module.size() > 2 && module.front() == '[' && module.back() == ']') e.module = module.substr(1, module.size() - 2);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<KprobeStatus> parse_kprobe_list(const std::string &text) {
  std::vector<KprobeStatus> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string address, type, where;
    if (!(words >> address >> type >> where) || type.size() != 1) continue;
    KprobeStatus s;
    s.type = type[0];
    std::tie(s.symbol, s.offset) = split_symbol_offset(where);
    for (std::string word; words >> word;) {
      if (word.front() != '[') {
        s.module = word;
        continue;
      }
      // "[DISABLED][FTRACE]" is one word: split at each ']'.
      for (size_t at = 0; at < word.size();) {
        size_t close = word.find(']', at);
        if (word[at] != '[' || close == std::string::npos) break;
        s.flags.push_back(word.substr(at + 1, close - at - 1));
        at = close + 1;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::optional<KprobeStatus> status_of(const std::vector<KprobeStatus> &list, const TraceDefinition &def) {
  if (def.kind != TraceDefinition::Kind::Kprobe) return std::nullopt;
  auto [module, symbol] = module_and_symbol(def.symbol);
  char type = def.is_return ? 'r' : 'k';
  for (const KprobeStatus &s : list)
    if (s.type == type && s.symbol == symbol && s.offset == def.offset && s.module == module) return s;
  // A probe on a function's entry is moved past its endbr64 by kernels built
  // with IBT (Debian's 6.12 lists vfs_read+0 as vfs_read+0x4).
  constexpr uint64_t endbr64_size = 4;
  if (def.offset == 0)
    for (const KprobeStatus &s : list)
      if (s.type == type && s.symbol == symbol && s.offset == endbr64_size && s.module == module) return s;
  return std::nullopt;
}

std::optional<std::string> read_kprobes_debugfs(const std::string &name) {
  const std::string dir = "/sys/kernel/debug";
  std::string path = dir + "/kprobes/" + name;
  if (access(path.c_str(), R_OK) != 0 && geteuid() == 0 && access((dir + "/kprobes").c_str(), F_OK) != 0)
    (void)mount("debugfs", dir.c_str(), "debugfs", 0, nullptr);  // absent when the kernel has no debugfs
  Result<std::string> text = read_whole_file(path);
  if (!text) return std::nullopt;
  return std::move(*text);
}

}  // namespace kpp
