// Runs a program as a subprocess and captures what a user would see: its
// stdout, its stderr and its exit status, and when they came. Optionally
// drops to another uid in the child before exec (the "not root" tests),
// signals it after a while, or closes its stdout after one line (`| head
// -n 1`). The one way tests run programs: run_command.h runs a shell
// command through it. (Library kpp_test_common.)
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

struct run_result {
  int status = -1;       // exit status; 128 + N when killed by signal N
  bool signaled = false; // killed by a signal (a crash, for the tool)
  pid_t pid = -1;
  std::string out;
  std::string err;
  double first_out_s = -1;  // when the first byte of stdout arrived, from the start
  double total_s = 0;       // when both pipes closed
};

struct run_options {
  std::optional<uid_t> uid;  // setgid/setuid to this id (gid = same number) in the child
  bool close_stdout_after_first_line = false;  // as `| head -n 1` does
  int signal = 0;                              // sent to the program `signal_after_s` after the start
  double signal_after_s = 0;
  // Send `signal` to the program's first child instead: kprobe-probe's
  // working process (src/cli/supervisor.h), as a crash or the OOM killer
  // would end it. Not sent when the program has no child by then.
  bool signal_child = false;
};

// The first child of `pid` (/proc/PID/task/PID/children), or 0: for
// kprobe-probe, its working process (src/cli/supervisor.h).
pid_t first_child(pid_t pid);

// Runs argv[0] (a path: no PATH search) with `argv`, stdin from /dev/null,
// and waits for it; reads both of its outputs as they come.
run_result run_program(const std::vector<std::string> &argv, const run_options &opt = {});
