// ChildProcess: the one way the tool starts another program (fork, then
// execvp: found in PATH, no shell). What differs between callers is an
// option, not a copy: the traced command after "--" is held before exec
// until tracing is on and gets the default signal dispositions back; the
// trace-cmd helper runs at once with its output captured.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/result.h"

namespace kpp {

// How a child ended: "exited 7", "killed by SIGSEGV"; "running" before.
struct CommandEnd {
  bool ended = false;
  int exit_code = 0;  // when it exited
  int signal = 0;     // when a signal killed it
  // The shell's convention: the exit code, or 128 + the signal.
  int status() const { return signal ? 128 + signal : exit_code; }
  std::string describe() const;
};

struct ChildOptions {
  // Where one of the child's standard streams goes.
  enum class Stream {
    Inherit,  // ours
    Null,     // /dev/null
    Stderr,   // stdout only: onto our stderr
    Capture,  // stdout only: a pipe, read with read_output()
  };
  Stream in = Stream::Inherit, out = Stream::Inherit, err = Stream::Inherit;
  // Forked now, exec'd at release(): the traced command's first
  // instructions run once tracing is on.
  bool held = false;
  // SIGINT, SIGTERM, SIGHUP and SIGPIPE back to their defaults: a handler of
  // ours does not survive exec, but an ignored signal would.
  bool default_signals = false;
};

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;
  // Kills (SIGKILL) and reaps a child still running.
  ~ChildProcess();

  // Starts argv[0] with argv. Not held: returns once it has exec'd, error
  // ("cannot run 'NAME': ...") when exec failed (it is reaped then).
  Status start(const std::vector<std::string> &argv, const ChildOptions &options);
  // A held child: lets it exec; the same error when exec failed.
  Status release();
  // True once the child has exited (reaps it). `block`: wait for it.
  bool reap(bool block);
  // The captured stdout until the child closes it, its first `cap` bytes
  // (read on past them, so that the child never blocks writing).
  std::string read_output(size_t cap);

  bool started() const { return pid_ > 0; }
  bool held() const { return go_fd_ >= 0; }
  pid_t pid() const { return pid_; }
  // Readable once the child exits; -1 when reaped or not started.
  int wake_fd() const { return reaped_ ? -1 : pidfd_; }
  const CommandEnd &end() const { return end_; }

 private:
  Status exec_result();
  pid_t pid_ = -1;
  int go_fd_ = -1, err_fd_ = -1, out_fd_ = -1, pidfd_ = -1;
  bool reaped_ = false;
  CommandEnd end_;
  std::string name_;
};

}  // namespace kpp
