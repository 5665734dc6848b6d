// Runs a shell command from a test and collects what it prints: the tests
// compare what real tools say (kprobe-probe itself, readelf, nm, objdump,
// trace-cmd, tmux, python3's json) with what they expect. One helper for
// every test area (library kpp_test_common).
#pragma once

#include <string>

namespace kpp::test {

// Where the command's standard error goes.
enum class Stderr {
  Inherited,  // the test's own (ctest's log)
  Merged,     // into CommandRun::out, as "2>&1" would
  Apart,      // into CommandRun::err
};

struct CommandRun {
  bool started = false;  // the shell ran (popen succeeded)
  int status = -1;       // the exit status; -1 when killed by a signal or not started
  std::string out;       // standard output (and standard error when merged)
  std::string err;       // standard error, when collected apart
};

// Runs `command` with /bin/sh, reads all it prints and waits for it.
CommandRun run_command(const std::string &command, Stderr err = Stderr::Inherited);

}  // namespace kpp::test
