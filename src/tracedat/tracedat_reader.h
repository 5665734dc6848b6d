// read_tracedat: the offline side of `record`. Opens a trace.dat (any
// version trace-cmd writes or we write: 6, 7, compressed or not) with
// libtracecmd, walks its events in timestamp order across CPUs, and decodes
// each with the same EventDecoder as the live stream, using the format files
// stored in the file. So `kprobe-probe report` prints exactly what `trace`
// would have printed for the same events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/stream/event_sink.h"
#include "src/util/result.h"

namespace kpp {

struct TraceDatSummary {
  uint64_t events = 0;
  int cpus = 0;                        // highest CPU with events, plus one
  std::vector<uint64_t> lost_per_cpu;  // losses the pages record (by CPU, up to the last with a loss)
  std::vector<std::string> warnings;   // "lost 12 events on cpu1"; print them
};

// Hands every event to `sink` (on_start with the file's probe events, then
// on_event, on_lost, then on_finish). comm
// comes from the file's saved cmdlines. Errors: not a trace.dat libtracecmd
// can open (missing, truncated, unknown compression), or the sink failed.
Result<TraceDatSummary> read_tracedat(const std::string &path, EventSink &sink);

}  // namespace kpp
