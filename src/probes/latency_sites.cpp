#include "src/probes/latency_sites.h"

#include <map>
#include <memory>
#include <optional>

#include "util/goroutine_field.h"
#include "util/strings.h"

namespace kpp {

namespace {

struct FunctionAt {
  std::string key;      // binary and function entry
  uint64_t address = 0; // where the probe sits, to find the earliest
  bool returns = false; // a return probe: a uretprobe, or (Go) a probe on a return instruction
};

bool has_goroutine(const TraceDefinition &d) {
  for (const FetchArg &a : d.args)
    if (a.name == goroutine_field) return true;
  return false;
}

class Functions {
 public:
  explicit Functions(dwarf::OpenedFiles &files) : files_(files) {}

  std::optional<FunctionAt> of(const TraceDefinition &d) {
    if (d.kind == TraceDefinition::Kind::Kprobe) {
      // "[MOD:]SYM+offs": the symbol is the function.
      if (d.symbol.empty() || d.symbol.find_first_not_of("0123456789abcdefxABCDEFX") == std::string::npos)
        return std::nullopt;  // a raw address
      return FunctionAt{"kernel#" + d.symbol, d.offset, d.is_return};
    }
    dwarf::DebugInfo *debug = files_.get(d.path);
    if (!debug) return std::nullopt;
    auto address = debug->elf().address_of_file_offset(d.offset);
    if (!address) return std::nullopt;
    auto place = debug->source_of(*address);
    if (!place) return std::nullopt;
    // A Go function's FUNC%return is probes on its return instructions
    // (never a uretprobe), each a p: definition with the goroutine field.
    bool returns = d.is_return || (has_goroutine(d) && debug->elf().returns_at(*address));
    return FunctionAt{d.path + "#" + hex(place->function_entry), *address, returns};
  }

 private:
  dwarf::OpenedFiles &files_;
};

}  // namespace

std::vector<LatencySite> latency_sites(const std::vector<const TraceDefinition *> &definitions, dwarf::OpenedFiles &files) {
  Functions functions(files);
  std::vector<std::optional<FunctionAt>> at;
  std::map<std::string, size_t> earliest_entry;  // key -> index of its earliest non-return probe
  std::map<std::string, bool> has_return;
  for (size_t i = 0; i < definitions.size(); ++i) {
    at.push_back(definitions[i] ? functions.of(*definitions[i]) : std::nullopt);
    if (!at.back()) continue;
    const std::string &key = at.back()->key;
    if (at.back()->returns) {
      has_return[key] = true;
      continue;
    }
    auto it = earliest_entry.find(key);
    if (it == earliest_entry.end() || at.back()->address < at[it->second]->address) earliest_entry[key] = i;
  }
  std::vector<LatencySite> sites(definitions.size());
  for (size_t i = 0; i < definitions.size(); ++i) {
    if (!at[i]) continue;
    sites[i].is_return = at[i]->returns;
    if (has_return.count(at[i]->key) && (at[i]->returns || earliest_entry[at[i]->key] == i)) sites[i].key = at[i]->key;
  }
  return sites;
}

std::vector<LatencyPair> latency_pairs(const std::vector<const TraceDefinition *> &definitions, dwarf::OpenedFiles &files) {
  std::vector<LatencySite> sites = latency_sites(definitions, files);
  std::map<std::string, size_t> entry_of;  // site -> its entry probe
  for (size_t i = 0; i < sites.size(); ++i)
    if (!sites[i].key.empty() && !sites[i].is_return) entry_of[sites[i].key] = i;
  std::vector<LatencyPair> pairs;
  for (size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].key.empty() || !sites[i].is_return) continue;
    if (auto it = entry_of.find(sites[i].key); it != entry_of.end()) pairs.push_back({it->second, i});
  }
  return pairs;
}

}  // namespace kpp
