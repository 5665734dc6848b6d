// The real readers of a trace.dat, as the tests use them: `trace-cmd report`
// (a subprocess, its text parsed) and libtracecmd (tracecmd_open and
// iteration, KernelShark's loader). Shared by the trace.dat test files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/stream/uprobe_helper.h"

namespace kpp::test {

// One fixture hit as `trace-cmd report -t` prints it.
struct ReportedHit {
  Hit hit;
  std::string comm;
  int pid = 0;
  int cpu = 0;
  uint64_t time_ns = 0;
};

// The hits `trace-cmd report -t` prints for our event, in its order; its
// exit status in *status and its whole output in *text.
std::vector<ReportedHit> trace_cmd_report(const std::string &path, int *status, std::string *text);
// Just the fixture values of the above.
std::vector<Hit> hits_of(const std::vector<ReportedHit> &reported);

// The hits libtracecmd reads from the file, in its timestamp order.
struct LibReadResult {
  bool opened = false;
  std::vector<Hit> hits;
  std::vector<unsigned long long> ts;
};
LibReadResult libtracecmd_hits(const std::string &path);

// Whether this trace-cmd knows compression `name` (`trace-cmd list -c`).
bool trace_cmd_supports_compression(const std::string &name);

}  // namespace kpp::test
