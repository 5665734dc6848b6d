// -p without --children: the kernel follows every task the targets fork
// (set_event_pid with event-fork, so a thread started between two polls
// is never missed), and this stage drops what is not one of their
// threads. It reads the `task:task_newtask` events the session enables
// beside the probes (the kernel writes one, in the parent's context,
// before the new task runs; its clone_flags say whether it is a thread):
// a task created without CLONE_THREAD, or by a task already dropped, is a
// child process, and its events are dropped. task_newtask events
// themselves never reach the sinks.
#pragma once

#include <sys/types.h>

#include <set>

#include "src/stream/event.h"

namespace kpp {

class TaskFilter {
 public:
  static constexpr const char *kSystem = "task";
  static constexpr const char *kEvent = "task_newtask";

  // Whether `event` goes on to the sinks (noting the tasks it creates).
  bool pass(const Event &event);

 private:
  std::set<pid_t> children_;
};

}  // namespace kpp
