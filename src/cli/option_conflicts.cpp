#include "src/cli/option_conflicts.h"

#include <string>
#include <vector>

namespace kpp {

namespace {

// One switch as the table sees it: its spelling and whether it was given.
struct Given {
  const char *name;
  bool present;
};

// The probe command's switches that each name one thing to do: any two of
// them together are refused (perf probe holds them mutually exclusive; -D
// does what -a does without writing, so it joins them).
std::vector<Given> probe_actions(const CliOptions &o) {
  return {{"-a (--add)", !o.add.empty()},          {"-D (--definition)", !o.definition.empty()},
          {"-d (--del)", !o.del.empty()},          {"-L (--line)", !o.lines.empty()},
          {"-V (--vars)", !o.vars.empty()},        {"-l (--list)", o.list.has_value()},
          {"-F (--funcs)", o.funcs.has_value()}};
}

Error conflict(const char *a, const char *b, const std::string &hint) {
  return Error(std::string("switch '") + a + "' cannot be used with switch '" + b + "'", hint);
}

// -p names a running process: it chooses the file a probe is placed in
// (-a, -D, -V, -L, -F) or the events a session shows; nothing else.
Status check_pid_conflicts(const CliOptions &o) {
  if (o.pids.empty()) {
    if (o.children) return Error("--children needs -p PID", "it adds the children of the processes -p names");
    return Ok{};
  }
  const char *p = o.target_ns ? "--target-ns" : "-p (--pid)";
  if (!o.del.empty()) return conflict(p, "-d (--del)", "-d removes probes by name, whatever process they were added for");
  if (o.list) return conflict(p, "-l (--list)", "-l lists every probe, with the file (and process) each is placed in");
  if (!o.vmlinux.empty()) return conflict(p, "-k (--vmlinux)", "-p probes a process's program or libraries, not the kernel");
  if (!o.module.empty()) return conflict(p, "-m (--module)", "-p probes a process's program or libraries, not the kernel");
  if (o.fprobe) return conflict(p, "--fprobe", "fprobes are kernel probes");
  if (!o.command_line.empty())
    return conflict(p, "-- COMMAND", "a session follows either running processes (-p) or a command it starts");
  if (o.pid_only) return conflict(p, "--pid-only", "-p already traces only the processes it names");
  if (o.target_ns && o.command != CliOptions::Command::Probe)
    return Error("--target-ns applies to the probe commands (perf probe's meaning)",
                 "to trace only a process, give it with -p PID");
  return Ok{};
}

}  // namespace

Status check_option_conflicts(const CliOptions &options) {
  if (options.command == CliOptions::Command::Probe) {
    std::vector<Given> actions = probe_actions(options);
    for (size_t i = 0; i < actions.size(); ++i)
      for (size_t j = i + 1; j < actions.size(); ++j)
        if (actions[i].present && actions[j].present)
          return conflict(actions[i].name, actions[j].name, "one of them per command, as perf probe takes them");
  }
  return check_pid_conflicts(options);
}

}  // namespace kpp
