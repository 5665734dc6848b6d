#include "tests/common/run_program.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>

pid_t first_child(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children";
  std::ifstream in(path);
  long child = 0;
  return (in >> child) ? static_cast<pid_t>(child) : 0;
}

run_result run_program(const std::vector<std::string> &argv, const run_options &opt) {
  run_result r;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.err = "pipe failed";
    return r;
  }
  pid_t pid = fork();
  if (pid < 0) {
    r.err = "fork failed";
    return r;
  }
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (opt.uid) {
      gid_t gid = static_cast<gid_t>(*opt.uid);
      if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(*opt.uid) != 0) _exit(126);
    }
    std::vector<char *> args;
    for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  r.pid = pid;
  close(out_pipe[1]);
  close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string *sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  auto start = std::chrono::steady_clock::now();
  auto since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  bool signal_sent = opt.signal == 0;
  while (open_fds > 0) {
    int timeout = -1;
    if (!signal_sent) {
      double left = opt.signal_after_s - since_start();
      if (left <= 0) {
        if (!opt.signal_child) kill(pid, opt.signal);
        else if (pid_t child = first_child(pid); child > 0) kill(child, opt.signal);
        signal_sent = true;
      } else {
        timeout = static_cast<int>(left * 1000) + 1;
      }
    }
    if (poll(fds, 2, timeout) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        if (i == 0 && r.first_out_s < 0) r.first_out_s = since_start();
        sinks[i]->append(buf, static_cast<size_t>(n));
        if (i == 0 && opt.close_stdout_after_first_line && r.out.find('\n') != std::string::npos) {
          r.out.resize(r.out.find('\n') + 1);
          close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
        }
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  r.total_s = since_start();
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wstatus)) {
    r.status = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    r.signaled = true;
    r.status = 128 + WTERMSIG(wstatus);
  }
  return r;
}
