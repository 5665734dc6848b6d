// Which probes make an entry/return latency pair: decided from the
// definitions and the source points they resolve to, not from event names.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/definition/trace_definition.h"

namespace kpp {

struct LatencyPairIndex {
  size_t entry;  // indexes into the definitions given
  size_t ret;
};

// `points[i]` is where `defs[i]` sits, as SourceLookup::point_of() says it
// ("add@prog.c", "walk:5@prog.c", "add%return@prog.c"; "0x1149" without
// debug info). A return probe of function F pairs with the first probe in
// F (the lowest address) of the same group and binary: a probe on F itself
// sits after F's prologue, so it lists as "F:1" rather than "F" and its
// address is not the return probe's. Without debug info, only a probe at
// the return probe's own address pairs. Each probe is in one pair at most.
std::vector<LatencyPairIndex> find_latency_pairs(const std::vector<TraceDefinition> &defs,
                                                 const std::vector<std::string> &points);

}  // namespace kpp
