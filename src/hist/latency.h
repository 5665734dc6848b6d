// `hist --latency FUNC`: the time from FUNC's entry probe to its return probe,
// measured in the kernel. The entry probe saves a timestamp per thread; the
// return probe computes the difference and, on a match, fires a synthetic
// event carrying it (onmatch); a log2 histogram on that event counts them.
#pragma once

#include <string>

#include "src/hist/hist_request.h"
#include "src/stream/trace_instance.h"

namespace kpp {

struct LatencyTriggers {
  std::string synthetic_name;        // "kpp_lat_<pid>": a global event, ours by name (stale_instances.h)
  std::string synthetic_definition;  // "kpp_lat_<pid> u64 lat_us" for synthetic_events
  std::string entry_trigger;         // on the entry probe: saves the timestamp
  std::string return_trigger;        // on the return probe: computes, fires the synthetic event
  HistRequest histogram;             // on the synthetic event: lat_us.log2
};

// The triggers for the entry event of a function and its return event (which
// gets return_trigger), firing the synthetic event `synthetic_name` (the
// run's own: this_runs_synthetic_event_name(), which a later run's stale
// sweep recognises when this one was killed).
LatencyTriggers latency_triggers(const EventId &entry, const std::string &synthetic_name);

}  // namespace kpp
