// TracedCommand: the command after "--", forked and held before exec until
// tracing is on (so its first instructions are traced), then watched
// through a pidfd, and ended when the session ends before it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/child_process.h"
#include "util/result.h"

namespace kpp {

// Where the command's stdout goes.
enum class CommandOutput {
  Inherit,   // ours (trace's text lines and the command's share the terminal)
  ToStderr,  // our stderr: stdout carries only our stream (trace --json)
  Null,      // stdin, stdout and stderr on /dev/null (the live view owns the terminal)
};

class TracedCommand {
 public:
  TracedCommand() = default;
  TracedCommand(const TracedCommand &) = delete;
  TracedCommand &operator=(const TracedCommand &) = delete;

  // Forks; the child waits for release() before exec.
  Status spawn(const std::vector<std::string> &argv, CommandOutput output);
  // Lets the child exec; error when exec failed (it is reaped then).
  Status release() { return child_.release(); }
  // True once the child has exited (reaps it). `block`: wait for it.
  bool reap(bool block) { return child_.reap(block); }
  // Ends a command that outlived the session: `signal` (the one that stopped
  // us, so it sees what the user sent; SIGTERM when 0 or SIGPIPE), then
  // SIGKILL after 1 s.
  void stop(int signal);

  bool started() const { return child_.started(); }
  pid_t pid() const { return child_.pid(); }
  // Readable once the child exits; -1 when reaped or not started.
  int wake_fd() const { return child_.wake_fd(); }
  const CommandEnd &end() const { return child_.end(); }
  const std::string &name() const { return name_; }

 private:
  ChildProcess child_;  // killed and reaped when still running
  std::string name_;
};

}  // namespace kpp
