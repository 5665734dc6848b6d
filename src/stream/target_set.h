// The processes a session follows (-p PID...): held by their pidfds
// (target_process.h), their events kept in the kernel by the instance's
// set_event_pid (the kernel's pid filter takes thread ids, so each
// thread is written; with event-fork, the kernel adds every task they
// fork, threads and child processes alike, and a session that wants
// threads only drops the processes, task_filter.h; without it, threads
// started later are added as the session runs). The session ends when
// the last of them exits.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "src/stream/target_process.h"
#include "util/result.h"

namespace kpp {

class TraceInstance;

// Thread id on the host -> thread id in the target's own pid namespace
// (only for targets in another one); shared with the sink chain, which
// puts it on each event (Event::ns_pid).
using NsPidMap = std::map<pid_t, pid_t>;
// A pid is not a process for ever: thread id of a target that has exited
// -> the CLOCK_MONOTONIC time (the sessions' trace clock) when the session
// saw it gone. An event of that id stamped later is another process's,
// which got the id once the target was reaped; the sink chain drops it.
using RetiredMap = std::map<pid_t, uint64_t>;

class TargetSet {
 public:
  // Opens every pid (TargetProcess::open's errors, the first one).
  static Result<TargetSet> open(const std::vector<pid_t> &pids);

  bool empty() const { return processes_.empty(); }
  const std::vector<TargetProcess> &processes() const { return processes_; }

  // Limits `instance`'s events to the targets' threads and, with
  // `follow_forks` (event-fork), every task they fork from then on.
  Status filter(TraceInstance &instance, bool follow_forks);
  // Adds the threads started since (not with `follow_forks`: the kernel adds them).
  Status refresh(TraceInstance &instance);
  // Turns event-fork on once tracing is (with `filter(instance, false)`
  // before): a task forked while tracing was still off would be followed
  // with no task_newtask event recorded to say what it is (task_filter.h).
  // Adds the threads started since filter().
  Status follow_forks(TraceInstance &instance);

  // The targets seen exiting since the last call, at `now_ns` (0: not
  // known on this trace clock): their thread ids go into the instance's
  // set_event_notrace_pid, so that a process given one of them after the
  // target is reaped is not recorded, and into retired().
  Status retire_exited(TraceInstance &instance, uint64_t now_ns);
  std::shared_ptr<const RetiredMap> retired() const { return retired_; }

  bool all_exited() const;
  // The pidfds of the targets still running (each readable when it exits).
  std::vector<int> wake_fds() const;
  // "pid 41234 (loop)" of each target, ", " between them.
  std::string describe() const;
  std::shared_ptr<const NsPidMap> ns_pids() const { return ns_pids_; }

 private:
  // The threads of the running targets not yet written; their ns tids noted.
  std::vector<pid_t> new_threads();

  std::vector<TargetProcess> processes_;
  bool follow_forks_ = false;
  std::set<pid_t> written_;
  std::map<pid_t, std::vector<pid_t>> threads_of_;  // target pid -> the thread ids written for it
  std::set<pid_t> gone_;                            // targets retired
  std::shared_ptr<NsPidMap> ns_pids_ = std::make_shared<NsPidMap>();
  std::shared_ptr<RetiredMap> retired_ = std::make_shared<RetiredMap>();
};

}  // namespace kpp
