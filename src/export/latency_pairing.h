// Which probes make an entry/return latency pair: decided from the
// definitions and the source points they resolve to, not from event names.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "src/definition/trace_definition.h"

namespace kpp {

struct LatencyPairIndex {
  size_t entry;  // indexes into the definitions given
  size_t ret;
};

// `points[i]` is where `defs[i]` sits, as SourceLookup::point_of() says it
// ("add@prog.c", "walk:5@prog.c", "add%return@prog.c", "0x1149" without
// debug info). A return probe pairs with an entry probe of the same group
// and binary that sits at the entry of the same function ("add", "add:0",
// "add+0": perf places entry probes after the prologue, so their address
// is not the return probe's) or, without debug info, at the same address.
// Each probe is in one pair at most; the first entry probe found wins.
std::vector<LatencyPairIndex> find_latency_pairs(const std::vector<TraceDefinition> &defs,
                                                 const std::vector<std::string> &points);

}  // namespace kpp
