#include "util/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"

namespace kpp {

std::string CommandEnd::describe() const {
  if (!ended) return "running";
  if (!signal) return "exited " + std::to_string(exit_code);
  return "killed by " + signal_name(signal);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  for (int fd : {go_fd_, err_fd_, out_fd_, pidfd_})
    if (fd >= 0) ::close(fd);
}

namespace {

using Stream = ChildOptions::Stream;

// The pipes between us and the child; -1 where the options need none.
struct Pipes {
  int go[2] = {-1, -1};   // held: our byte lets it exec
  int err[2] = {-1, -1};  // its exec's errno; closed by a successful exec
  int out[2] = {-1, -1};  // captured stdout
  void close_all() {
    for (int *p : {go, err, out})
      for (int i = 0; i < 2; ++i)
        if (p[i] >= 0) ::close(p[i]);
  }
};

// In the child, before exec: only async-signal-safe calls from here on.
// Waits for the go without read(2): tracing is on by then, and a read would
// be the command's first traced call (a probe on vfs_read saw it, and a hist
// keyed by .execname named the pid "kprobe-probe" from it). The parent's
// byte means go; the pipe closed without one, it gave up.
void wait_for_go(int go) {
  pollfd wait{go, POLLIN, 0};
  while (::poll(&wait, 1, -1) < 0 && errno == EINTR) {
  }
  int ready = 0;
  if (ioctl(go, FIONREAD, &ready) != 0 || ready < 1) _exit(127);
}

void redirect(const ChildOptions &o, int captured) {
  int null = -1;
  if (o.in == Stream::Null || o.out == Stream::Null || o.err == Stream::Null) null = ::open("/dev/null", O_RDWR);
  if (o.in == Stream::Null && null >= 0) dup2(null, STDIN_FILENO);
  if (o.out == Stream::Null && null >= 0) dup2(null, STDOUT_FILENO);
  if (o.out == Stream::Stderr) dup2(STDERR_FILENO, STDOUT_FILENO);
  if (o.out == Stream::Capture) dup2(captured, STDOUT_FILENO);
  if (o.err == Stream::Null && null >= 0) dup2(null, STDERR_FILENO);
  if (null > 2) ::close(null);
}

[[noreturn]] void run_child(char *const *args, const ChildOptions &o, const Pipes &p) {
  if (o.default_signals)
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(sig, SIG_DFL);
  // Our ends: a go pipe still open here would never read as given up.
  for (int fd : {p.go[1], p.err[0], p.out[0]})
    if (fd >= 0) ::close(fd);
  if (o.held) wait_for_go(p.go[0]);
  redirect(o, p.out[1]);
  execvp(args[0], args);
  int e = errno;
  (void)!::write(p.err[1], &e, sizeof e);
  _exit(127);
}

Status open_pipes(const ChildOptions &o, Pipes &p) {
  bool ok = pipe2(p.err, O_CLOEXEC) == 0 && (!o.held || pipe2(p.go, O_CLOEXEC) == 0) &&
            (o.out != Stream::Capture || pipe2(p.out, O_CLOEXEC) == 0);
  if (ok) return Ok{};
  int e = errno;
  p.close_all();
  return Error(std::string("cannot create a pipe: ") + std::strerror(e));
}

}  // namespace

Status ChildProcess::start(const std::vector<std::string> &argv, const ChildOptions &options) {
  Pipes p;
  if (Status s = open_pipes(options, p); !s) return s;
  std::vector<char *> args;  // built before fork: the child allocates nothing
  for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) {
    int e = errno;
    p.close_all();
    return Error(std::string("cannot fork: ") + std::strerror(e));
  }
  if (pid_ == 0) run_child(args.data(), options, p);
  for (int fd : {p.go[0], p.err[1], p.out[1]})  // the child's ends
    if (fd >= 0) ::close(fd);
  go_fd_ = p.go[1];
  err_fd_ = p.err[0];
  out_fd_ = p.out[0];
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  name_ = argv[0];
  return options.held ? Status(Ok{}) : exec_result();
}

Status ChildProcess::release() {
  char c = 1;
  if (::write(go_fd_, &c, 1) != 1) return Error("cannot release the command: " + std::string(std::strerror(errno)));
  ::close(go_fd_);
  go_fd_ = -1;
  return exec_result();
}

// The errno the child sent when its exec failed; nothing when exec closed
// the pipe.
Status ChildProcess::exec_result() {
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

bool ChildProcess::reap(bool block) {
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

std::string ChildProcess::read_output(size_t cap) {
  std::string text;
  if (out_fd_ < 0) return text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (text.size() < cap) text.append(buf, static_cast<size_t>(n));
  }
  ::close(out_fd_);
  out_fd_ = -1;
  return text;
}

}  // namespace kpp
