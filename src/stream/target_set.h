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

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "src/stream/target_process.h"
#include "src/util/result.h"

namespace kpp {

class TraceInstance;

// Thread id on the host -> thread id in the target's own pid namespace
// (only for targets in another one); shared with the sink chain, which
// puts it on each event (Event::ns_pid).
using NsPidMap = std::map<pid_t, pid_t>;

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

  bool all_exited() const;
  // A pidfd of a target still running (readable when it exits); -1 when none is.
  int wake_fd() const;
  // "pid 41234 (loop)" of each target, ", " between them.
  std::string describe() const;
  std::shared_ptr<const NsPidMap> ns_pids() const { return ns_pids_; }

 private:
  // The threads of the running targets not yet written; their ns tids noted.
  std::vector<pid_t> new_threads();

  std::vector<TargetProcess> processes_;
  bool follow_forks_ = false;
  std::set<pid_t> written_;
  std::shared_ptr<NsPidMap> ns_pids_ = std::make_shared<NsPidMap>();
};

}  // namespace kpp
