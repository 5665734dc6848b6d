#include "src/stream/traced_command.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>

namespace kpp {

Status TracedCommand::spawn(const std::vector<std::string> &argv, CommandOutput output) {
  ChildOptions options;
  options.held = true;
  options.default_signals = true;
  using Stream = ChildOptions::Stream;
  if (output == CommandOutput::ToStderr) options.out = Stream::Stderr;
  if (output == CommandOutput::Null) options.in = options.out = options.err = Stream::Null;
  if (Status s = child_.start(argv, options); !s) return s;
  name_ = argv[0];
  return Ok{};
}

void TracedCommand::stop(int signal) {
  pid_t pid = child_.pid();
  if (pid <= 0 || reap(false)) return;
  if (child_.held()) {  // never released: it has run none of its own code
    ::kill(pid, SIGKILL);
    reap(true);
    return;
  }
  ::kill(pid, signal == 0 || signal == SIGPIPE ? SIGTERM : signal);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    if (reap(false)) return;
    usleep(10000);
  }
  ::kill(pid, SIGKILL);
  reap(true);
}

}  // namespace kpp
