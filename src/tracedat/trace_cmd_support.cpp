#include "src/tracedat/trace_cmd_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

extern char **environ;

namespace kpp::tracedat {

namespace {

// Runs `trace-cmd ARG...` found in PATH (no shell), stdout captured, stdin
// and stderr on /dev/null; nothing when it cannot be run or exits non-zero.
std::optional<std::string> run_trace_cmd(std::vector<std::string> args) {
  args.insert(args.begin(), "trace-cmd");
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, "trace-cmd", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string text;
  if (rc == 0) {
    char buf[4096];
    for (;;) {
      ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (text.size() < 65536) text.append(buf, static_cast<size_t>(n));  // read on, so it never blocks
    }
  }
  ::close(out[0]);
  if (rc != 0) return std::nullopt;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return text;
}

}  // namespace

std::optional<std::vector<std::string>> trace_cmd_compressions() {
  auto text = run_trace_cmd({"list", "-c"});
  if (!text) return std::nullopt;
  // "Supported compression algorithms:\n\tzstd, 1.5.4\n": a tab, the name, a comma.
  std::vector<std::string> names;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '\t') continue;
    names.push_back(line.substr(1, line.find(',') - 1));
  }
  return names;
}

std::string unreadable_compression_warning(const std::string &compression) {
  if (compression.empty() || compression == "none") return {};
  auto known = trace_cmd_compressions();
  if (!known) return {};
  std::string list;
  for (const std::string &name : *known) {
    if (name == compression) return {};
    list += (list.empty() ? "" : ", ") + name;
  }
  return "the trace-cmd installed here cannot read " + compression + "-compressed trace.dat files (it reads: " +
         (list.empty() ? "none" : list) + ")";
}

}  // namespace kpp::tracedat
