// SinkChain: the one road every shown event takes, whatever the command
// (trace, record, live, demo, report):
//
//   stream/trace.dat -> own-pid filter -> task filter -> retired pids -> site, ns pid, enum names -> stack join -> companion join -> sinks
//
// (Value fixups -- a signed bitfield, DWARF's additions -- are finished by
// the EventDecoder before the chain, so every sink sees final values.)
// The own-pid filter drops events of the tool's own process: a probe on the
// read path would otherwise show our own buffer reads. The task filter
// (task_filter.h, -p without --children) drops the targets' child processes,
// the retired-pid filter the events of a process that got an exited
// target's pid (target_set.h). The companion join
// (entry_value_join.h) folds entry-value companions into their probe; the
// site (event_sites.h) says which copy of a probe fired. The stack join
// (stack_join.h) puts the kernel's stack events back on their event.
// Raw pages pass untouched to the sinks that want them.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "src/stream/companions.h"
#include "src/stream/entry_value_join.h"
#include "src/stream/event_enums.h"
#include "src/stream/event_sink.h"
#include "src/stream/event_sites.h"
#include "src/stream/stack_join.h"
#include "src/stream/task_filter.h"

namespace kpp {

struct SinkChainOptions {
  // The companions, when the caller knows them (definitions, a plan);
  // unset: recognised in on_start() from the formats the stream read.
  std::optional<Companions> companions;
  pid_t own_pid = 0;  // events of this pid are dropped; 0: none (a replayed file)
  EventSites sites;   // empty: events carry no site
  StackJoinOptions stacks;  // mode Off: no stacks
  // -p targets in another pid namespace: host tid -> tid there, put on
  // each event as Event::ns_pid (the session adds threads as they start).
  std::shared_ptr<const std::map<pid_t, pid_t>> ns_pids;
  // -p without --children: drop the targets' child processes (task_filter.h).
  bool threads_only = false;
  // -p: sched_process_exit is recorded; a uprobe event of an id after its
  // task exited is dropped (task_filter.h).
  bool task_exits = false;
  TaskEventsShown task_events_shown;  // the task events the user asked for too: shown
  // -p targets that exited: host tid -> the time they were seen gone; a
  // later event of that tid is another process's (its pid reused) and is dropped.
  std::shared_ptr<const std::map<pid_t, uint64_t>> retired;
  EventEnums enums;  // the enum-typed fields' enumerators; empty: enums are shown as numbers
};

class SinkChain : public EventSink {
 public:
  // `sinks` are not owned and must outlive the chain.
  SinkChain(SinkChainOptions options, std::vector<EventSink *> sinks);

  Status on_start(const StreamInfo &info) override;
  bool wants_events() const override { return stacks_.wants_events() || drops_events(); }
  bool drops_events() const override { return tasks_ || retired_; }
  bool dropped_last() const override { return dropped_; }
  bool wants_pages() const override { return stacks_.wants_pages(); }
  Status on_page(int cpu, std::span<const uint8_t> page) override { return stacks_.on_page(cpu, page); }
  Status on_event(const Event &event) override;
  void on_lost(int cpu, int64_t count) override { stacks_.on_lost(cpu, count); }
  Status on_batch_end() override { return stacks_.on_batch_end(); }
  Status on_finish() override { return stacks_.on_finish(); }

  const Companions &companions() const { return join_.companions(); }
  // Whether `event` is left out (the tool's own, a task the filters drop).
  bool leaves_out(const Event &event);
  // Events that reached the sinks: not the tool's own, companions folded in.
  uint64_t shown() const { return join_.forwarded(); }

 private:
  pid_t own_pid_;
  std::shared_ptr<const std::map<pid_t, pid_t>> ns_pids_;
  std::shared_ptr<const std::map<pid_t, uint64_t>> retired_;
  std::optional<TaskFilter> tasks_;
  bool recognise_;
  EventSites sites_;
  EventEnums enums_;
  Event sited_;  // reused: the event with its site
  bool dropped_ = false;  // the last event was left out
  EntryValueJoin join_;
  StackJoin stacks_;  // in front of join_
};

}  // namespace kpp
