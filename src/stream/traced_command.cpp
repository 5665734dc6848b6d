#include "src/stream/traced_command.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/strings.h"

namespace kpp {

std::string CommandEnd::describe() const {
  if (!ended) return "running";
  if (!signal) return "exited " + std::to_string(exit_code);
  return "killed by " + signal_name(signal);
}

TracedCommand::~TracedCommand() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  if (go_fd_ >= 0) ::close(go_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
  if (pidfd_ >= 0) ::close(pidfd_);
}

namespace {
// In the child, before exec: only async-signal-safe calls.
void redirect(CommandOutput output) {
  if (output == CommandOutput::ToStderr) {
    dup2(STDERR_FILENO, STDOUT_FILENO);
  } else if (output == CommandOutput::Null) {
    int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
      if (null > 2) ::close(null);
    }
  }
}
}  // namespace

Status TracedCommand::spawn(const std::vector<std::string> &argv, CommandOutput output) {
  int go[2], err[2];
  if (pipe2(go, O_CLOEXEC) != 0) return Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(go[0]);
    ::close(go[1]);
    return Error(std::string("cannot create a pipe: ") + std::strerror(e));
  }
  std::vector<char *> args;
  for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) return Error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    // The command gets the default dispositions, not our stop handlers' (a
    // handler does not survive exec, but an ignored signal would).
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, SIG_DFL);
    ::close(go[1]);
    ::close(err[0]);
    // Waits for the go without read(2): tracing is on by then, and a read
    // would be the command's first traced call (a probe on vfs_read saw it,
    // and a hist keyed by .execname named the pid "kprobe-probe" from it).
    // The parent's byte means go; the pipe closed without one, it gave up.
    pollfd wait{go[0], POLLIN, 0};
    while (::poll(&wait, 1, -1) < 0 && errno == EINTR) {
    }
    int ready = 0;
    if (ioctl(go[0], FIONREAD, &ready) != 0 || ready < 1) _exit(127);
    redirect(output);
    execvp(args[0], args.data());
    int e = errno;
    (void)!::write(err[1], &e, sizeof e);
    _exit(127);
  }
  ::close(go[0]);
  ::close(err[1]);
  go_fd_ = go[1];
  err_fd_ = err[0];
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  name_ = argv[0];
  return Ok{};
}

Status TracedCommand::release() {
  char c = 1;
  if (::write(go_fd_, &c, 1) != 1) return Error("cannot release the command: " + std::string(std::strerror(errno)));
  ::close(go_fd_);
  go_fd_ = -1;
  int e = 0;
  ssize_t n;
  do n = ::read(err_fd_, &e, sizeof e); while (n < 0 && errno == EINTR);
  ::close(err_fd_);
  err_fd_ = -1;
  if (n == static_cast<ssize_t>(sizeof e)) {
    reap(true);
    return Error("cannot run '" + name_ + "': " + std::strerror(e), "check the command name and PATH");
  }
  return Ok{};
}

bool TracedCommand::reap(bool block) {
  if (pid_ <= 0 || reaped_) return reaped_;
  int st = 0;
  pid_t r;
  do r = waitpid(pid_, &st, block ? 0 : WNOHANG); while (r < 0 && errno == EINTR);
  if (r == pid_) {
    reaped_ = true;
    end_.ended = true;
    if (WIFSIGNALED(st)) end_.signal = WTERMSIG(st);
    else end_.exit_code = WEXITSTATUS(st);
  }
  return reaped_;
}

void TracedCommand::stop(int signal) {
  if (pid_ <= 0 || reap(false)) return;
  if (go_fd_ >= 0) {  // never released: it has run none of its own code
    ::kill(pid_, SIGKILL);
    reap(true);
    return;
  }
  ::kill(pid_, signal == 0 || signal == SIGPIPE ? SIGTERM : signal);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    if (reap(false)) return;
    usleep(10000);
  }
  ::kill(pid_, SIGKILL);
  reap(true);
}

}  // namespace kpp
