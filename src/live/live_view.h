// The live view: a terminal showing the probes, their hits and rates, the
// latest events, latencies and argument values, updated as the probes fire,
// until q or a stop signal. Runs its own session (instance, stream, traced
// command); adding and removing probes is the caller's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dwarf/opened_files.h"
#include "src/definition/trace_definition.h"
#include "src/probes/probe_engine.h"
#include "src/stream/event_sites.h"
#include "src/stream/session.h"
#include "util/result.h"

namespace kpp {

struct LiveViewOptions {
  std::vector<std::string> events;   // "group:event" patterns to enable (at least one)
  std::string filter;                // tracefs filter on every event; empty = none
  std::vector<std::string> command;  // a command to trace (its terminal I/O to /dev/null); empty = none
  std::vector<pid_t> target_pids;    // -p: only these running processes (SessionOptions::target_pids)
  bool target_children = false;      // --children
  std::string output;                // also record to this trace.dat; empty = no recording
  EventSites sites;                  // the sites of the events, for their detail
  EventEnums enums;                  // the enum-typed fields' enumerators, for their values
  // The probed programs' debug info, opened once and read for the events'
  // sites, the rows' places and their pairs (never null).
  std::shared_ptr<dwarf::OpenedFiles> debug_files = std::make_shared<dwarf::OpenedFiles>();
  bool stack = false;                // --stack: each event's stack (SessionOptions::stack)
  std::shared_ptr<FrameSymbolizer> symbolizer;  // names the stacks' frames (null: addresses only)
  UserStackMethod user_stack = UserStackMethod::Dwarf;  // SessionOptions::user_stack
  size_t stack_window = 8192;
  std::shared_ptr<UserStackUnwinder> unwinder;
};

struct LiveViewSummary {
  SessionSummary session;
  uint64_t events = 0;  // what the model counted
  uint64_t lost = 0;
  uint64_t frames = 0;  // screens drawn
  double seconds = 0;
};

// Needs a terminal on stdin and stdout (the caller checks). `defs` are the
// dynamic events tracefs lists, for the rows' places and the companions.
Result<LiveViewSummary> run_live_view(const LiveViewOptions &options, ProbeEngine &engine,
                                      const std::vector<TraceDefinition> &defs);

}  // namespace kpp
