// read_tracedat: the offline side of `record`. Opens a trace.dat (any
// version trace-cmd writes or we write: 6, 7, compressed or not) with
// libtracecmd, walks its events in timestamp order across CPUs, and decodes
// each with the same EventDecoder as the live stream, using the format files
// stored in the file. So `kprobe-probe report` prints exactly what `trace`
// would have printed for the same events.
//
// A trace-cmd file may hold several buffers: the top-level one and those of
// tracefs instances (`trace-cmd extract -B NAME`, `record -B NAME`). Each is
// read in turn, the top level first, each in timestamp order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/stream/event_sink.h"
#include "util/result.h"

namespace kpp {

struct TraceDatSummary {
  uint64_t events = 0;
  int cpus = 0;                        // highest CPU with events, plus one
  std::vector<uint64_t> lost_per_cpu;  // losses the pages record (by CPU, up to the last with a loss)
  std::vector<std::string> warnings;   // "lost 12 events on cpu1"; print them
  // Events per buffer, in reading order, when the file has instance buffers
  // ("" is the top level); empty for a file of one buffer.
  std::vector<std::pair<std::string, uint64_t>> buffers;
};

// Told the name of an instance buffer before its first event, so that the
// caller can say where the events that follow come from. Not called for the
// top-level buffer.
using BufferStart = std::function<void(const std::string &name)>;

// Hands every event to `sink` (on_start with the file's probe events, then
// on_event, on_lost, then on_finish). comm
// comes from the file's saved cmdlines. Errors: not a trace.dat libtracecmd
// can open (missing, truncated, unknown compression), or the sink failed.
Result<TraceDatSummary> read_tracedat(const std::string &path, EventSink &sink, const BufferStart &on_buffer = {});

}  // namespace kpp
