#include "tests/common/run_command.h"

#include <cstdio>

#include "tests/common/run_program.h"

namespace kpp::test {

CommandRun run_command(const std::string &command, Stderr err) {
  // Grouped, so that the redirection covers every part of a compound
  // command ("a; b", "a | b"), not only its last.
  std::string shell = "{ " + command + "\n}";
  if (err == Stderr::Merged) shell += " 2>&1";
  run_result run = run_program({"/bin/sh", "-c", shell});
  CommandRun r;
  r.started = run.pid > 0;
  r.status = run.signaled ? -1 : run.status;
  r.out = std::move(run.out);
  if (err == Stderr::Apart) r.err = std::move(run.err);
  else std::fputs(run.err.c_str(), stderr);  // Inherited: the test's own stderr (ctest's log)
  return r;
}

}  // namespace kpp::test
