// One address, one site (issue 14 item 4): what every test that runs -D
// checks of its output. Header-only; shared by tests/e2e, tests/lto, tests/sdt.
#pragma once

#include <cstdint>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace definition_sites {

// The offsets that appear more than once among one event's definitions in
// -D's output ("p:G/E PATH:0xOFF ..."). Entry-value companions share their
// function's entry on purpose: only the definitions of one event count.
inline std::vector<uint64_t> repeated_offsets(const std::string &definitions) {
  static const std::regex site(R"(^([pr]:\S+) \S+:0x([0-9a-fA-F]+))");
  std::map<std::pair<std::string, uint64_t>, int> seen;
  std::vector<uint64_t> repeated;
  std::istringstream in(definitions);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, site)) continue;
    uint64_t offset = std::stoull(m[2].str(), nullptr, 16);
    if (++seen[{m[1].str(), offset}] == 2) repeated.push_back(offset);
  }
  return repeated;
}

// Whether a command line asks for definitions (-D, --definition[=SPEC]).
inline bool asks_for_definitions(const std::vector<std::string> &args) {
  for (const std::string &a : args)
    if (a == "-D" || a.rfind("--definition", 0) == 0) return true;
  return false;
}

}  // namespace definition_sites
