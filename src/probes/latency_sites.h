// Which live-view rows make an entry/return latency pair, from the
// definitions alone (never from names or WHERE text): a return probe and
// the entry probe of the same function in the same binary pair. The
// function is the one whose body holds the probe's address (uprobes: the
// program's symbols/DWARF; kprobes: the symbol), and the entry probe is
// the function's earliest non-return probe among those shown -- at the
// entry ("add"), after the prologue, or on the body's first lines
// ("fade:2"), whatever its name.
#pragma once

#include <string>
#include <vector>

#include "dwarf/opened_files.h"
#include "src/definition/trace_definition.h"

namespace kpp {

// One pairing key per definition ("" = pairs with nothing); equal keys
// pair (the live model pairs an entry with a return of the same key).
// A return is a uretprobe, or a probe on a return instruction of Go code
// (a Go FUNC%return: its definitions carry the goroutine field).
// Uprobes' binaries are read through `files`.
struct LatencySite {
  std::string key;
  bool is_return = false;
};
std::vector<LatencySite> latency_sites(const std::vector<const TraceDefinition *> &definitions, dwarf::OpenedFiles &files);

// The same rule as entry/return index pairs into `definitions` (for
// export's latency metrics): each return probe with its function's entry
// probe, in the order of the return probes.
struct LatencyPair {
  size_t entry;
  size_t ret;
};
std::vector<LatencyPair> latency_pairs(const std::vector<const TraceDefinition *> &definitions, dwarf::OpenedFiles &files);

}  // namespace kpp
