#include "src/export/latency_pairing.h"

#include <optional>

namespace kpp {

namespace {

// The binary a probe is in: the program's path, the module ("ext4:" prefix
// of the symbol), or the kernel.
std::string binary_of(const TraceDefinition &d) {
  if (d.kind == TraceDefinition::Kind::Uprobe) return d.path;
  size_t colon = d.symbol.find(':');
  return colon == std::string::npos ? "vmlinux" : d.symbol.substr(0, colon);
}

// The function whose entry (or return) the probe is on, from its point;
// nullopt for a probe inside a function or without debug info.
std::optional<std::string> function_entry_of(const std::string &point) {
  std::string place = point.substr(0, point.find('@'));
  size_t cut = place.find_first_of(":+%");
  std::string func = place.substr(0, cut);
  std::string rest = cut == std::string::npos ? "" : place.substr(cut);
  if (func.empty() || func.rfind("0x", 0) == 0) return std::nullopt;  // a raw address
  if (rest.empty() || rest == ":0" || rest == "+0" || rest == "+0x0" || rest == "%return") return func;
  return std::nullopt;
}

bool same_site(const TraceDefinition &a, const TraceDefinition &b) {
  return a.kind == b.kind && a.path == b.path && a.symbol == b.symbol && a.offset == b.offset;
}

}  // namespace

std::vector<LatencyPairIndex> find_latency_pairs(const std::vector<TraceDefinition> &defs,
                                                 const std::vector<std::string> &points) {
  std::vector<LatencyPairIndex> pairs;
  std::vector<bool> used(defs.size(), false);
  for (size_t r = 0; r < defs.size(); ++r) {
    if (!defs[r].is_return || used[r]) continue;
    std::optional<std::string> func = r < points.size() ? function_entry_of(points[r]) : std::nullopt;
    for (size_t e = 0; e < defs.size(); ++e) {
      const TraceDefinition &entry = defs[e];
      if (entry.is_return || used[e] || entry.group != defs[r].group || binary_of(entry) != binary_of(defs[r])) continue;
      bool match = func ? e < points.size() && function_entry_of(points[e]) == func : same_site(entry, defs[r]);
      if (!match) continue;
      used[e] = used[r] = true;
      pairs.push_back({e, r});
      break;
    }
  }
  return pairs;
}

}  // namespace kpp
