#include "src/stream/session.h"

#include "src/stream/entry_value_join.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

#include "src/stream/tracefs_cxx.h"

#include "src/stream/event_stream.h"
#include "src/stream/stop_signal.h"
#include "src/stream/trace_instance.h"

namespace kpp {

namespace {

using Clock = std::chrono::steady_clock;

// A command forked and held before exec until release().
class HeldCommand {
 public:
  ~HeldCommand() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      int st;
      waitpid(pid_, &st, 0);
    }
    if (go_fd_ >= 0) ::close(go_fd_);
    if (err_fd_ >= 0) ::close(err_fd_);
    if (pidfd_ >= 0) ::close(pidfd_);
  }

  Status spawn(const std::vector<std::string> &argv) {
    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
      return Error(std::string("cannot create a pipe: ") + std::strerror(errno));
    pid_ = fork();
    if (pid_ < 0) return Error(std::string("cannot fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      ::close(go[1]);
      ::close(err[0]);
      char c;
      if (::read(go[0], &c, 1) != 1) _exit(127);  // parent gave up
      std::vector<char *> args;
      for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
      args.push_back(nullptr);
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

  // Lets the child exec; reports exec failure.
  Status release() {
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
      return Error("cannot run '" + name_ + "': " + std::strerror(e),
                   "check the command name and PATH");
    }
    return Ok{};
  }

  // True once the child has exited (reaps it). `block`: wait for it.
  bool reap(bool block) {
    if (pid_ <= 0 || reaped_) return reaped_;
    int st = 0;
    pid_t r;
    do r = waitpid(pid_, &st, block ? 0 : WNOHANG); while (r < 0 && errno == EINTR);
    if (r == pid_) {
      reaped_ = true;
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    return reaped_;
  }

  // Ends a child that outlived the session: SIGTERM, then SIGKILL after 1 s.
  void stop() {
    if (pid_ <= 0 || reap(false)) return;
    ::kill(pid_, SIGTERM);
    auto deadline = Clock::now() + std::chrono::seconds(1);
    while (Clock::now() < deadline) {
      if (reap(false)) return;
      usleep(10000);
    }
    ::kill(pid_, SIGKILL);
    reap(true);
  }

  pid_t pid() const { return pid_; }
  int pidfd() const { return pidfd_; }
  int status() const { return status_; }

 private:
  pid_t pid_ = -1;
  int go_fd_ = -1, err_fd_ = -1, pidfd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string name_;
};

Status validate(const SessionOptions &o) {
  if (o.events.empty()) return Error("no events to trace", "name them with -e GROUP:EVENT (globs allowed)");
  if (o.pid_only && o.command.empty())
    return Error("--pid-only needs a command", "add -- COMMAND [ARGS...]");
  if (o.duration_s < 0) return Error("--duration must not be negative");
  return Ok{};
}

}  // namespace

Result<SessionSummary> run_session(const SessionOptions &opt, const std::vector<EventSink *> &sinks) {
  // Probes that read entry values have companion events; the sinks see each
  // probe's hit with those values joined in.
  EntryValueJoin join(sinks);
  if (Status v = validate(opt); !v) return std::move(v).error();
  StopSignalScope signals;
  SessionSummary sum;

  auto inst_r = TraceInstance::create(opt.instance_name);
  if (!inst_r) return std::move(inst_r).error();
  TraceInstance instance = std::move(*inst_r);
  HeldCommand command;  // declared after the instance: a failed setup kills it first
  std::unique_ptr<EventStream> stream;

  auto setup = [&]() -> Status {
    tracefs_trace_off(instance.raw());  // nothing recorded until all is set
    if (!opt.clock.empty()) {
      if (Status st = instance.set_clock(opt.clock); !st) sum.warnings.push_back(st.error().message);
    }
    if (opt.buffer_size_kb)
      if (Status st = instance.set_buffer_size_kb(opt.buffer_size_kb); !st) return st;
    for (const auto &pattern : opt.events)
      if (auto r = instance.enable(pattern); !r) return std::move(r).error();
    // Our own reads of the ring buffer are system calls too: a probe on the
    // read path (vfs_read, ksys_read) would record every read we make and
    // the buffer would never drain. The kernel filter drops our own events
    // before they are recorded.
    std::string own = "common_pid != " + std::to_string(getpid());
    std::string filter = opt.filter.empty() ? own : "(" + opt.filter + ") && " + own;
    if (Status st = instance.set_filter(filter); !st) return st;
    if (!opt.command.empty()) {
      if (Status st = command.spawn(opt.command); !st) return st;
      sum.command_pid = command.pid();
      if (opt.pid_only)
        if (Status st = instance.set_event_pid(command.pid()); !st) return st;
    }
    auto s = EventStream::open(instance, {&join});
    if (!s) return std::move(s).error();
    stream = std::move(*s);
    if (Status st = stream->start(); !st) return st;
    if (tracefs_trace_on(instance.raw()) != 0)
      return Error("cannot turn tracing on in instance " + instance.name());
    if (!opt.command.empty())
      if (Status st = command.release(); !st) return st;
    return Ok{};
  };

  auto t0 = Clock::now();
  Status failure = setup();
  if (failure) {
    auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
    for (;;) {
      if (stop_requested()) {
        sum.interrupted = true;
        sum.signal = stop_signal();
        break;
      }
      if (!opt.command.empty() && command.reap(false)) {
        sum.command_exited = true;
        break;
      }
      int wait_ms = opt.poll_interval_ms;
      if (opt.duration_s > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
          sum.duration_elapsed = true;
          break;
        }
        wait_ms = static_cast<int>(std::min<long long>(wait_ms, left));
      }
      auto r = stream->poll(wait_ms, command.pidfd());
      if (!r) {
        failure = std::move(r).error();
        break;
      }
    }
  }
  sum.seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  // Teardown, on every path: stop recording, drain what is left, finish the
  // sinks (trace.dat gets its final offsets), close the readers, remove the
  // instance. The first error wins; later steps still run.
  (void)instance.disable_all();
  if (instance.raw()) tracefs_trace_off(instance.raw());
  if (stream) {
    if (auto r = stream->flush(); !r && failure) failure = std::move(r).error();
    if (Status st = stream->finish(); !st && failure) failure = st;
    sum.events = stream->events();
    sum.bytes_read = stream->bytes_read();
    for (const auto &[k, v] : stream->counts()) sum.per_event.emplace_back(k, v);
    std::sort(sum.per_event.begin(), sum.per_event.end());
    for (int cpu = 0; cpu < stream->cpus(); ++cpu) {
      sum.lost_per_cpu.push_back(stream->lost(cpu));
      if (stream->lost(cpu))
        sum.warnings.push_back("lost " + std::to_string(stream->lost(cpu)) + " events on cpu" + std::to_string(cpu));
      else if (stream->lost_unknown(cpu))
        sum.warnings.push_back("lost events on cpu" + std::to_string(cpu) + " (the kernel did not say how many)");
    }
    stream->close();
  }
  if (!opt.command.empty() && command.pid() > 0) {
    command.stop();
    sum.command_status = command.status();
  }
  if (Status st = instance.close(); !st && failure) failure = st;
  if (!failure) return std::move(failure).error();
  return sum;
}

}  // namespace kpp
