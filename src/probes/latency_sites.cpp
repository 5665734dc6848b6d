#include "src/probes/latency_sites.h"

#include <map>
#include <memory>
#include <optional>

#include "util/strings.h"

namespace kpp {

namespace {

struct FunctionAt {
  std::string key;      // binary and function entry
  uint64_t address = 0; // where the probe sits, to find the earliest
};

class Functions {
 public:
  explicit Functions(dwarf::OpenedFiles &files) : files_(files) {}

  std::optional<FunctionAt> of(const TraceDefinition &d) {
    if (d.kind == TraceDefinition::Kind::Kprobe) {
      // "[MOD:]SYM+offs": the symbol is the function.
      if (d.symbol.empty() || d.symbol.find_first_not_of("0123456789abcdefxABCDEFX") == std::string::npos)
        return std::nullopt;  // a raw address
      return FunctionAt{"kernel#" + d.symbol, d.offset};
    }
    dwarf::DebugInfo *debug = files_.get(d.path);
    if (!debug) return std::nullopt;
    auto address = debug->address_of_file_offset(d.offset);
    if (!address) return std::nullopt;
    auto place = debug->source_of(*address);
    if (!place) return std::nullopt;
    return FunctionAt{d.path + "#" + hex(place->function_entry), *address};
  }

 private:
  dwarf::OpenedFiles &files_;
};

}  // namespace

std::vector<std::string> latency_sites(const std::vector<const TraceDefinition *> &definitions, dwarf::OpenedFiles &files) {
  Functions functions(files);
  std::vector<std::optional<FunctionAt>> at;
  std::map<std::string, size_t> earliest_entry;  // key -> index of its earliest non-return probe
  std::map<std::string, bool> has_return;
  for (size_t i = 0; i < definitions.size(); ++i) {
    at.push_back(definitions[i] ? functions.of(*definitions[i]) : std::nullopt);
    if (!at.back()) continue;
    const std::string &key = at.back()->key;
    if (definitions[i]->is_return) {
      has_return[key] = true;
      continue;
    }
    auto it = earliest_entry.find(key);
    if (it == earliest_entry.end() || at.back()->address < at[it->second]->address) earliest_entry[key] = i;
  }
  std::vector<std::string> sites(definitions.size());
  for (size_t i = 0; i < definitions.size(); ++i) {
    if (!at[i] || !has_return.count(at[i]->key)) continue;
    if (definitions[i]->is_return || earliest_entry[at[i]->key] == i) sites[i] = at[i]->key;
  }
  return sites;
}

std::vector<LatencyPair> latency_pairs(const std::vector<const TraceDefinition *> &definitions, dwarf::OpenedFiles &files) {
  std::vector<std::string> sites = latency_sites(definitions, files);
  std::map<std::string, size_t> entry_of;  // site -> its entry probe
  for (size_t i = 0; i < sites.size(); ++i)
    if (!sites[i].empty() && !definitions[i]->is_return) entry_of[sites[i]] = i;
  std::vector<LatencyPair> pairs;
  for (size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].empty() || !definitions[i]->is_return) continue;
    if (auto it = entry_of.find(sites[i]); it != entry_of.end()) pairs.push_back({it->second, i});
  }
  return pairs;
}

}  // namespace kpp
