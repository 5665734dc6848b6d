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

// The function a point is in ("walk" of "walk:5@prog.c"); nullopt for a raw
// address (a point without debug info).
std::optional<std::string> function_of(const std::string &point) {
  std::string func = point.substr(0, point.find_first_of(":+%@"));
  if (func.empty() || func.rfind("0x", 0) == 0) return std::nullopt;
  return func;
}

bool same_site(const TraceDefinition &a, const TraceDefinition &b) {
  return a.kind == b.kind && a.path == b.path && a.symbol == b.symbol && a.offset == b.offset;
}

}  // namespace

std::vector<LatencyPairIndex> find_latency_pairs(const std::vector<TraceDefinition> &defs,
                                                 const std::vector<std::string> &points) {
  std::vector<LatencyPairIndex> pairs;
  std::vector<bool> used(defs.size(), false);
  auto point = [&](size_t i) { return i < points.size() ? function_of(points[i]) : std::nullopt; };
  for (size_t r = 0; r < defs.size(); ++r) {
    if (!defs[r].is_return) continue;
    std::optional<std::string> func = point(r);
    std::optional<size_t> best;
    for (size_t e = 0; e < defs.size(); ++e) {
      const TraceDefinition &entry = defs[e];
      if (entry.is_return || used[e] || entry.group != defs[r].group || binary_of(entry) != binary_of(defs[r])) continue;
      bool in_function = func ? point(e) == func : same_site(entry, defs[r]);
      if (in_function && (!best || entry.offset < defs[*best].offset)) best = e;
    }
    if (!best) continue;
    used[*best] = true;
    pairs.push_back({*best, r});
  }
  return pairs;
}

}  // namespace kpp
