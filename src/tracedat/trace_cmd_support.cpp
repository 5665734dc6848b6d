#include "src/tracedat/trace_cmd_support.h"

#include <sstream>

#include "util/child_process.h"

namespace kpp::tracedat {

namespace {

// Runs `trace-cmd ARG...` found in PATH (no shell), stdout captured, stdin
// and stderr on /dev/null; nothing when it cannot be run or exits non-zero.
std::optional<std::string> run_trace_cmd(std::vector<std::string> args) {
  args.insert(args.begin(), "trace-cmd");
  ChildOptions options;
  options.in = options.err = ChildOptions::Stream::Null;
  options.out = ChildOptions::Stream::Capture;
  ChildProcess child;
  if (!child.start(args, options)) return std::nullopt;
  std::string text = child.read_output(65536);
  child.reap(true);
  if (child.end().signal != 0 || child.end().exit_code != 0) return std::nullopt;
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
