// The tasks of -p sessions that stream events, from two kernel events the
// session enables beside the probes, which reach the sinks only when the
// user's -e named them too:
//
// - Threads only (-p without --children): the kernel follows every task the
//   targets fork (set_event_pid with event-fork, so a thread started
//   between two polls is never missed), and this stage drops what is not
//   one of their threads. `task:task_newtask` is written in the parent's
//   context before the new task runs; its clone_flags say whether it is a
//   thread: a task created without CLONE_THREAD, or by a task already
//   dropped, is a child process, and its events are dropped.
// - A pid is not a process for ever: `sched:sched_process_exit` is written
//   as a task exits, after its last user instruction. A uprobe event
//   (user code, a user-space probe address) of that id stamped later is
//   another process's, which got the id once the task was reaped: dropped.
//   (Kernel events of the exit path come after it too, so they are kept;
//   the session's retired pids cover them, target_set.h.) A task_newtask
//   of a followed task that gives the id out again makes it followed again.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>

#include "event/event.h"

namespace kpp {

// Which of the two events reach the sinks (those the user's -e named too).
struct TaskEventsShown {
  bool new_task = false, exit = false;
};

class TaskFilter {
 public:
  static constexpr const char *kSystem = "task";
  static constexpr const char *kEvent = "task_newtask";
  static constexpr const char *kExitSystem = "sched";
  static constexpr const char *kExitEvent = "sched_process_exit";

  // `threads_only`: drop the child processes (else only exited ids are checked).
  explicit TaskFilter(bool threads_only, TaskEventsShown shown = {}) : threads_only_(threads_only), shown_(shown) {}

  // Whether `event` goes on to the sinks (noting the tasks it creates or ends).
  bool pass(const Event &event);

 private:
  void on_new_task(const Event &event);

  bool threads_only_;
  TaskEventsShown shown_;
  std::set<pid_t> children_;
  std::map<pid_t, uint64_t> exited_;  // task id -> the time it exited
};

}  // namespace kpp
