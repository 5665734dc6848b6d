// A program the export tests start and leave running (the exporter, a
// Prometheus server): its output goes to files the test reads while it
// runs; the destructor stops it (SIGTERM, then SIGKILL) if the test did not.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

class background_process {
 public:
  // Starts argv with stdout and stderr in `log_prefix`.out / .err.
  background_process(const std::vector<std::string> &argv, const std::string &log_prefix)
      : out_(log_prefix + ".out"), err_(log_prefix + ".err") {
    pid_ = fork();
    if (pid_ == 0) {
      int out = open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int err = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      int null = open("/dev/null", O_RDONLY);
      if (out < 0 || err < 0 || null < 0) _exit(126);
      dup2(null, 0);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<char *> args;
      for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~background_process() { stop(); }
  background_process(const background_process &) = delete;
  background_process &operator=(const background_process &) = delete;

  pid_t pid() const { return pid_; }
  std::string out() const { return slurp(out_); }
  std::string err() const { return slurp(err_); }

  // Polls `done` every 50 ms until it is true or `seconds` pass; false on timeout
  // or when the process ended first.
  template <class Pred>
  bool wait_for(Pred done, double seconds) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      if (exited()) return done();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // Sends `sig` and waits up to `seconds` for the exit; then SIGKILL.
  // Returns the exit status (128+N when killed by signal N).
  int stop(int sig = SIGTERM, double seconds = 10) {
    if (pid_ <= 0) return status_;
    if (!exited()) {
      kill(pid_, sig);
      if (!wait_for([this] { return exited(); }, seconds)) {
        kill(pid_, SIGKILL);
        int st;
        waitpid(pid_, &st, 0);
        status_ = 128 + SIGKILL;
      }
    }
    pid_ = -1;
    return status_;
  }

  // True once the process has ended (reaps it).
  bool exited() {
    if (reaped_) return true;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) != pid_) return false;
    reaped_ = true;
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return true;
  }

 private:
  static std::string slurp(const std::string &path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string out_, err_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = -1;
};
