// A running process named by -p PID: what the probe commands and the
// sessions need of it, read from /proc while a pidfd holds it.
//
// A pid is not a process for ever: the pidfd is opened first and checked
// after /proc is read, so what was read is the process the pidfd holds (a
// process that exited meanwhile is an error, never its pid's next owner);
// the sessions then watch the pidfd, never the number.
//
// Containers: a process whose root or mount namespace is not ours has its
// files reached through /proc/PID/root (the kernel resolves such a path in
// uprobe_events to the container's file), and, in another pid namespace,
// a pid of its own there (NSpid in /proc/PID/status).
//
// Cost: a handful of /proc files of that one process; no scan of /proc.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "src/util/result.h"
#include "src/util/unique_fd.h"

namespace kpp {

class TargetProcess {
 public:
  // Opens the process `pid` (a pid of our namespace). Errors, each naming
  // the pid and why: no such process; a thread id (naming its process); a
  // zombie; a kernel thread; /proc/PID/exe or root unreadable (permission:
  // ptrace access, as gdb needs); exited while being read.
  static Result<TargetProcess> open(pid_t pid);

  pid_t pid() const { return pid_; }
  // Its pid in its own pid namespace; nullopt when that is ours.
  std::optional<pid_t> ns_pid() const { return ns_pid_; }
  const std::string &comm() const { return comm_; }
  // "/proc/PID/root" when its root or mount namespace differs from ours,
  // else "" (its paths are ours).
  const std::string &root() const { return root_; }
  // Its executable: the path to open and to place probes on from here
  // (under root() for a container), and the path as the process sees it.
  const std::string &exe_path() const { return exe_path_; }
  const std::string &exe_in_process() const { return exe_in_process_; }
  // The pidfd: readable once the process has exited.
  int pidfd() const { return pidfd_.get(); }
  // Whether it still runs (its pidfd is not readable).
  bool alive() const;

  // The path to use from here for `path` as the process sees it.
  std::string host_path(const std::string &path) const;
  // `path` as the process sees it, for a path /proc/PID/maps shows.
  std::string process_path(const std::string &maps_path) const;

  // "pid 41234 (loop)", or "pid 7 in the container, 41234 on the host (loop)".
  std::string describe() const;

  // Its threads' ids (/proc/PID/task), in our pid namespace; empty once it is gone.
  std::vector<pid_t> threads() const;

 private:
  // Its root (ours or a container's) and its executable.
  Status read_files();

  pid_t pid_ = 0;
  std::optional<pid_t> ns_pid_;
  std::string comm_;
  std::string root_;
  std::string root_seen_;  // its root as readlink shows it from here ("/" when ours)
  std::string exe_path_, exe_in_process_;
  UniqueFd pidfd_;
};

// The file of `process` that `name` names, as a path to use from here:
// NAME with a '/' is a path as the process sees it (mapped or not, as
// perf's --target-ns takes -x); else a glob on the base names of the files
// it maps ("libc.so.6", "libssl*"). Errors: nothing matches (the mapped
// libraries are listed); several different files match (they are listed).
Result<std::string> mapped_file(const TargetProcess &process, const std::string &name);

}  // namespace kpp
