// Session: what `trace`, `record`, `live` and `demo` share, minus option
// parsing and printing. One object owns, for the session's life:
//  - our own tracefs instance (and, first, the removal of instances that
//    dead kprobe-probe processes left behind: stale_instances.h);
//  - the events enabled in it, each with its entry-value companions;
//  - the traced command (held until tracing is on);
//  - SIGINT/SIGTERM/SIGHUP/SIGPIPE, which only end the session (stop_signal.h);
//  - the one sink chain (sink_chain.h) in front of the caller's sinks;
//  - the teardown, on every path, errors included: events disabled, buffers
//    drained, sinks finished (a trace.dat gets its final offsets), the
//    command ended, the instance removed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/stream/companions.h"
#include "src/stream/dwarf_user_stacks.h"
#include "src/stream/event_sink.h"
#include "src/stream/event_enums.h"
#include "src/stream/event_sites.h"
#include "src/stream/stack_join.h"
#include "src/stream/target_set.h"
#include "src/stream/task_filter.h"
#include "src/stream/traced_command.h"
#include "util/result.h"

namespace kpp {

class EventStream;
class SinkChain;
class StopSignalScope;
class TraceInstance;
struct EventId;

enum class UserStackMethod { Dwarf, FramePointers };

struct SessionOptions {
  std::vector<std::string> events;   // -e GLOB (repeatable); at least one
  std::string filter;                // --filter EXPR: tracefs event filter, on every event
  double duration_s = 0;             // --duration S; 0 = no limit
  bool pid_only = false;             // --pid-only: only the command and its children
  std::vector<std::string> command;  // -- COMMAND ARGS...; empty = none
  // -p PID...: only these running processes' events (target_set.h); the
  // session ends when the last one exits. Not with `command`.
  std::vector<pid_t> target_pids;
  bool target_children = false;      // --children: their descendants too
  CommandOutput command_output = CommandOutput::Inherit;
  bool end_with_command = true;      // the session ends when the command (or the last -p target) exits (not live)
  std::string instance_name;         // default kprobe-probe-<pid>
  size_t buffer_size_kb = 0;         // per CPU; 0 = kernel default
  int poll_interval_ms = 100;        // how often the buffers are drained (and printers flushed)
  std::string clock = "mono";        // trace clock; "mono" gives exact CPU merging
  // The probe events that exist, from their definitions (sites known); the
  // companions are recognised from them. Empty: from the format files.
  std::vector<ProbeShape> probes;
  std::optional<Companions> companions;  // a plan's own, when it has them
  EventSites sites;                      // which site each event's probe is (empty: none)
  EventEnums enums;                      // the enum-typed fields' enumerators (empty: numbers)
  // --stack: the kernel stack of each event that is not a uprobe's (the
  // `stacktrace` trigger), the user stack of each uprobe event (the
  // instance's `userstacktrace` option), joined to their events.
  bool stack = false;
  // How a uprobe event's user stack is found: unwound from the binaries'
  // DWARF call-frame information over a copy of the stack (`stack_window`
  // bytes from the stack pointer) and the registers, sampled with
  // perf_event_open (dwarf_user_stacks.h; needs `unwinder`), or walked by
  // the kernel through frame pointers (the userstacktrace option).
  UserStackMethod user_stack = UserStackMethod::Dwarf;
  size_t stack_window = 8192;
  std::shared_ptr<UserStackUnwinder> unwinder;
  std::shared_ptr<FrameSymbolizer> symbolizer;  // names the frames (null: addresses only)
  // Counting in place (hist): false leaves the events off and streams
  // nothing (`events` may be empty); the kernel counts through the triggers
  // `prepare` adds. Signals, the command, --duration and the teardown are
  // the same.
  bool stream_events = true;
  // Called with the session's instance once its events are set and before
  // tracing is on and the command runs: a caller's own triggers
  // (TraceInstance::add_trigger), removed with the instance on every path.
  std::function<Status(TraceInstance &)> prepare;
};

struct SessionSummary {
  uint64_t events = 0;                                     // events seen (companions not counted)
  std::vector<std::pair<std::string, uint64_t>> per_event; // "group:event" -> hits, sorted by name
  std::vector<uint64_t> lost_per_cpu;
  std::vector<std::string> warnings;  // e.g. "lost 1234 events on cpu1"; print them
  std::vector<std::string> notes;     // e.g. a stale instance removed; print them
  bool interrupted = false;           // stopped by a signal (or request_stop())
  int signal = 0;                     // which one
  bool duration_elapsed = false;
  pid_t command_pid = 0;
  CommandEnd command;                 // how the command ended
  std::string command_name;           // its file name, for the summary
  std::string targets;                // the -p processes, "pid 41234 (loop), ..."; empty without -p
  bool targets_exited = false;        // the session ended because the last of them exited
  double seconds = 0;                 // wall time traced
  uint64_t bytes_read = 0;            // raw ring-buffer bytes
};

// Why step() says the session should end (Running: go on).
enum class SessionState { Running, Interrupted, CommandExited, DurationElapsed, TargetsExited };

class Session {
 public:
  // Sets everything up and turns tracing on; `sinks` (not owned) must
  // outlive the session. Errors: bad options, tracefs/instance/enable/filter
  // failures, the command cannot be started, a sink's on_start failed;
  // what was set up is torn down again.
  static Result<std::unique_ptr<Session>> start(const SessionOptions &options, std::vector<EventSink *> sinks);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Waits up to `max_wait_ms` (cut short by a signal, the command's exit
  // or `wake_fd` becoming readable), delivers what arrived.
  Result<SessionState> step(int max_wait_ms, int wake_fd = -1);

  // Tears down (see the file comment) and sums up. Call once.
  Result<SessionSummary> finish();

  TraceInstance &instance();
  const EventStream &stream() const;  // only when SessionOptions::stream_events
  const TracedCommand &command() const { return command_; }
  // The -p processes (empty without -p).
  const TargetSet &targets() const { return targets_; }
  // The events the session enabled for itself (-p's task events), never shown.
  const std::vector<EventId> &own_events() const { return own_events_; }
  // The companions the chain joins.
  const Companions &companions() const;
  // Notes from setup (stale instances removed), for the caller to print now.
  const std::vector<std::string> &notes() const { return summary_.notes; }

 private:
  Session(const SessionOptions &options);
  Status setup(std::vector<EventSink *> sinks);
  // Enables the events, their companions, the filter and the stacks.
  Status enable_events();
  // -p, streaming: the kernel events of the task filter (task_filter.h).
  void enable_task_events();
  // The -p targets that exited since the last step: no longer recorded,
  // and their ids' later events dropped (TargetSet::retire_exited).
  Status retire_targets();
  // The sink chain and the stream that feeds it.
  Status open_stream(std::vector<EventSink *> sinks);
  // Turns on the stacks of the enabled events (see SessionOptions::stack).
  Result<StackJoinOptions> enable_stacks(const std::string &filter);
  // Starts sampling the user stacks of `uprobes` for DWARF unwinding.
  Status start_dwarf_stacks(const std::vector<EventId> &uprobes, StackJoinOptions &stacks);
  // What the DWARF stacks' sampling lost or had to say.
  void sum_up_dwarf_stacks();

  SessionOptions options_;
  std::unique_ptr<StopSignalScope> signals_;
  std::unique_ptr<TraceInstance> instance_;
  TracedCommand command_;  // after the instance: a failed setup ends it first
  TargetSet targets_;
  Companions companions_;   // until open_stream() hands them to the chain
  StackJoinOptions stacks_;  // likewise
  std::unique_ptr<DwarfUserStacks> dwarf_stacks_;  // before chain_: its StackJoin takes from it
  std::unique_ptr<SinkChain> chain_;
  std::unique_ptr<EventStream> stream_;
  SessionSummary summary_;
  bool threads_only_ = false;  // -p without --children, streaming: task:task_newtask is on (task_filter.h)
  bool task_exits_ = false;    // -p, streaming: sched:sched_process_exit is on (task_filter.h)
  TaskEventsShown task_events_shown_;  // of those, the ones the user's -e named too
  std::vector<EventId> own_events_;      // the ones the session enabled for itself
  std::chrono::steady_clock::time_point started_, deadline_;
  bool finished_ = false;
};

// start + step until the end + finish: trace, record and demo.
Result<SessionSummary> run_session(const SessionOptions &options, const std::vector<EventSink *> &sinks);

}  // namespace kpp
