// run_session: what `kprobe-probe trace` and `record` do, minus option
// parsing and printing. Creates our own tracefs instance, enables the events,
// optionally starts a command (held until tracing is on), streams events to
// the sinks until the command exits / the duration ends / SIGINT or SIGTERM,
// then disables, drains, finishes the sinks (trace.dat finalized) and
// removes the instance -- on every path, errors included.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/stream/event_sink.h"
#include "src/util/result.h"

namespace kpp {

struct SessionOptions {
  std::vector<std::string> events;   // -e GLOB (repeatable); at least one
  std::string filter;                // --filter EXPR: tracefs event filter, on every event
  double duration_s = 0;             // --duration S; 0 = no limit
  bool pid_only = false;             // --pid-only: only the command and its children
  std::vector<std::string> command;  // -- COMMAND ARGS...; empty = none
  std::string instance_name;         // default kprobe-probe-<pid>
  size_t buffer_size_kb = 0;         // per CPU; 0 = kernel default
  int poll_interval_ms = 100;        // how often the buffers are drained
  std::string clock = "mono";        // trace clock; "mono" gives exact CPU merging
};

struct SessionSummary {
  uint64_t events = 0;                                     // events seen
  std::vector<std::pair<std::string, uint64_t>> per_event; // "group:event" -> hits, sorted by name
  std::vector<uint64_t> lost_per_cpu;
  std::vector<std::string> warnings;  // e.g. "lost 1234 events on cpu1"; print them
  bool interrupted = false;           // stopped by SIGINT/SIGTERM
  int signal = 0;                     // which one
  bool duration_elapsed = false;
  pid_t command_pid = 0;
  bool command_exited = false;        // the command ended by itself
  int command_status = 0;             // its exit code, or 128+signal
  double seconds = 0;                 // wall time traced
  uint64_t bytes_read = 0;            // raw ring-buffer bytes
};

// Runs one session; sinks (not owned) get on_start, pages/events, on_lost
// and on_finish. SIGINT/SIGTERM are caught for the session's duration (see
// stop_signal.h) and end it cleanly; the previous handlers are restored.
// With a command and no duration the session ends when the command exits.
// Errors: bad options, tracefs/instance/enable/filter failures, the command
// cannot be started, a sink failed. The instance is removed in every case.
Result<SessionSummary> run_session(const SessionOptions &options, const std::vector<EventSink *> &sinks);

}  // namespace kpp
