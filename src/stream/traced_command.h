// TracedCommand: the command after "--", forked and held before exec until
// tracing is on (so its first instructions are traced), then watched
// through a pidfd, and ended when the session ends before it.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/result.h"

namespace kpp {

// Where the command's stdout goes.
enum class CommandOutput {
  Inherit,   // ours (trace's text lines and the command's share the terminal)
  ToStderr,  // our stderr: stdout carries only our stream (trace --json)
  Null,      // stdin, stdout and stderr on /dev/null (the live view owns the terminal)
};

// How a command ended: "exited 7", "killed by SIGSEGV"; "running" before.
struct CommandEnd {
  bool ended = false;
  int exit_code = 0;  // when it exited
  int signal = 0;     // when a signal killed it
  // The shell's convention: the exit code, or 128 + the signal.
  int status() const { return signal ? 128 + signal : exit_code; }
  std::string describe() const;
};

class TracedCommand {
 public:
  TracedCommand() = default;
  TracedCommand(const TracedCommand &) = delete;
  TracedCommand &operator=(const TracedCommand &) = delete;
  // Kills and reaps a command still running.
  ~TracedCommand();

  // Forks; the child waits for release() before exec.
  Status spawn(const std::vector<std::string> &argv, CommandOutput output);
  // Lets the child exec; error when exec failed (it is reaped then).
  Status release();
  // True once the child has exited (reaps it). `block`: wait for it.
  bool reap(bool block);
  // Ends a command that outlived the session: `signal` (the one that stopped
  // us, so it sees what the user sent; SIGTERM when 0 or SIGPIPE), then
  // SIGKILL after 1 s.
  void stop(int signal);

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // Readable once the child exits; -1 when reaped or not started.
  int wake_fd() const { return reaped_ ? -1 : pidfd_; }
  const CommandEnd &end() const { return end_; }
  const std::string &name() const { return name_; }

 private:
  pid_t pid_ = -1;
  int go_fd_ = -1, err_fd_ = -1, pidfd_ = -1;
  bool reaped_ = false;
  CommandEnd end_;
  std::string name_;
};

}  // namespace kpp
