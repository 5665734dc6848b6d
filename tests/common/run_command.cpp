#include "tests/common/run_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace kpp::test {

namespace {

// All of `f`'s bytes from where it stands.
std::string read_all(std::FILE *f) {
  std::string text;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) text.append(buf, n);
  return text;
}

}  // namespace

CommandRun run_command(const std::string &command, Stderr err) {
  CommandRun r;
  // Grouped, so that a redirection below covers every part of a compound
  // command ("a; b", "a | b"), not only its last.
  std::string shell = "{ " + command + "\n}";
  std::string err_file;
  if (err == Stderr::Merged) {
    shell += " 2>&1";
  } else if (err == Stderr::Apart) {
    // A file of our own: two tests may run the same command at once.
    char name[] = "/tmp/kpp_test_stderr_XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0) return r;
    close(fd);
    err_file = name;
    shell += " 2>" + err_file;
  }
  if (std::FILE *p = popen(shell.c_str(), "r")) {
    r.started = true;
    r.out = read_all(p);
    int status = pclose(p);
    r.status = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  if (!err_file.empty()) {
    if (std::FILE *f = std::fopen(err_file.c_str(), "r")) {
      r.err = read_all(f);
      std::fclose(f);
    }
    std::remove(err_file.c_str());
  }
  return r;
}

}  // namespace kpp::test
