#include "tui/kprobes_list.h"

#include <sstream>

namespace kpp::tui {

std::map<std::string, KprobeFlags> parse_kprobes_list(std::string_view text) {
  std::map<std::string, KprobeFlags> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string addr, type, place, word;
    if (!(words >> addr >> type >> place) || place.find('+') == std::string::npos) continue;
    KprobeFlags &f = out[place];
    while (words >> word) {
      if (word == "[GONE]") f.gone = true;
      else if (word == "[OPTIMIZED]") f.optimized = true;
      else if (word == "[FTRACE]") f.ftrace = true;
      else if (word == "[DISABLED]") f.disabled = true;
    }
  }
  return out;
}

}  // namespace kpp::tui
