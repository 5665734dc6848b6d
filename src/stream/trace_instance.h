// TraceInstance: a tracefs instance of our own, so the user's top-level
// buffer and other tracers are never touched.
//
// Cleanup rules (why there is a registry): the destructor and close() disable
// what we enabled and remove the instance. A process that is interrupted must
// still clean up, so:
//  - SIGINT/SIGTERM handlers must only set a flag (see stop_signal.h); the
//    poll loop sees it, returns, and the normal destructors run;
//  - for paths that skip destructors (exit() from elsewhere), every live
//    instance is in a registry that remove_all_trace_instances() walks; the
//    CLI can register it with install_trace_instance_cleanup_at_exit().
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

struct tracefs_instance;

namespace kpp {

// One enabled event: its system (group) and name.
struct EventId {
  std::string system;
  std::string name;
  bool operator==(const EventId &) const = default;
};

class TraceInstance {
 public:
  // Creates the tracefs instance `name` (default "kprobe-probe-<pid>").
  // Mounts tracefs if needed (ensure_tracefs). Errors: tracefs missing,
  // an instance of that name already exists (we never adopt someone else's),
  // or mkdir failed.
  static Result<TraceInstance> create(const std::string &name = {});

  TraceInstance(TraceInstance &&other) noexcept;
  TraceInstance &operator=(TraceInstance &&other) noexcept;
  TraceInstance(const TraceInstance &) = delete;
  TraceInstance &operator=(const TraceInstance &) = delete;
  ~TraceInstance();

  // Resolves `pattern` against the events that exist and enables each match
  // in this instance. Forms: "system", "system:event", globs in either part
  // ("probe_prog:*", "probe*:walk_*"); a bare word that names no system is
  // taken as an event name in any system. Error if nothing matches.
  // Returns the events it enabled.
  Result<std::vector<EventId>> enable(const std::string &pattern);
  // The events `pattern` names (the forms enable() takes), without enabling them.
  Result<std::vector<EventId>> match(const std::string &pattern) const;

  // Whether the event has `file` in this instance ("hist" exists only where
  // the kernel has CONFIG_HIST_TRIGGERS).
  bool has_event_file(const EventId &event, const std::string &file) const;
  // Appends a trigger ("hist:keys=...") to the event's trigger file in this
  // instance; it is removed by remove_triggers() and by close(), on every path.
  Status add_trigger(const EventId &event, const std::string &trigger);
  // Removes every trigger add_trigger() added, newest first.
  Status remove_triggers();
  // Appends a command to one of the event's files in this instance, not to be
  // undone (a hist trigger's ":pause"). Error quotes the command.
  Status write_event_file(const EventId &event, const std::string &file, const std::string &text);
  // The text of one of the event's files in this instance ("hist").
  Result<std::string> read_event_file(const EventId &event, const std::string &file) const;

  // Sets a tracefs event filter on every event this instance enabled.
  // Error names the event and quotes the kernel's complaint.
  Status set_filter(const std::string &expr);

  // Limits events to `pid` and, because of event-fork, its descendants.
  Status set_event_pid(pid_t pid);
  // Limits events to the tasks `pids` (thread ids: the kernel's filter
  // is per task), added to those already set when `append`; with
  // `follow_forks` (event-fork), every task they fork joins them.
  Status set_event_pids(const std::vector<pid_t> &pids, bool follow_forks, bool append);
  // Adds `pids` to set_event_notrace_pid: their events are not recorded,
  // even where set_event_pid holds them (Linux 5.8+).
  Status add_event_notrace_pids(const std::vector<pid_t> &pids);

  // Per-CPU buffer size in KiB.
  Status set_buffer_size_kb(size_t kb);

  // Selects the trace clock ("mono" lets the stream merge CPUs against
  // CLOCK_MONOTONIC). Error if the kernel does not offer it.
  Status set_clock(const std::string &clock);
  // The selected clock (as in the instance's trace_clock file, bracketed).
  std::string clock() const;

  // Disables every event this instance enabled (the instance stays).
  Status disable_all();

  // Disables what we enabled and removes the instance. Idempotent. Error if
  // rmdir failed (e.g. a reader still has a per-CPU file open).
  Status close();

  bool is_open() const { return inst_ != nullptr; }
  const std::string &name() const { return name_; }
  const std::string &tracing_dir() const { return tracing_dir_; }
  const std::vector<EventId> &enabled() const { return enabled_; }
  // Distinct systems among enabled(), in first-enabled order.
  std::vector<std::string> enabled_systems() const;
  tracefs_instance *raw() const { return inst_; }

 private:
  TraceInstance(tracefs_instance *inst, std::string name, std::string tracing_dir);
  friend void remove_all_trace_instances();

  tracefs_instance *inst_ = nullptr;
  std::string name_;
  std::string tracing_dir_;
  std::vector<EventId> enabled_;
  std::vector<std::pair<EventId, std::string>> triggers_;  // (event, trigger) in the order added
};

// Default instance name: "kprobe-probe-<pid>", "-ns<inode>" added outside
// the initial pid namespace (stale_instances.h).
std::string default_instance_name();

// Disables and removes every TraceInstance still alive in this process.
// Not async-signal-safe: call it from atexit or a normal code path, never
// from a signal handler.
void remove_all_trace_instances();

// Registers remove_all_trace_instances() with atexit() (once).
void install_trace_instance_cleanup_at_exit();

}  // namespace kpp
