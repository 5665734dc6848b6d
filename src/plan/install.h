// install(): a Plan written to the kernel, all of it or nothing.
#pragma once

#include <string>
#include <vector>

#include "src/plan/plan.h"
#include "src/probes/probe_engine.h"
#include "src/util/result.h"

namespace kpp {

// Removes the events it holds when destroyed, unless keep() was called.
// Declare it before anything that enables the events (an enabled event
// cannot be removed), so it is destroyed after them.
class InstalledProbes {
 public:
  explicit InstalledProbes(ProbeEngine &engine) : engine_(engine) {}
  ~InstalledProbes();
  InstalledProbes(const InstalledProbes &) = delete;
  InstalledProbes &operator=(const InstalledProbes &) = delete;

  void hold(const std::string &qualified_name);
  // The held events are the user's: not removed at the end (nor by the
  // supervisor if this process dies).
  void keep();
  // "group:event" of every held event, in the order added.
  const std::vector<std::string> &names() const { return names_; }

 private:
  ProbeEngine &engine_;
  std::vector<std::string> names_;
};

// Writes every definition of `plan`, or none, and hands its events to
// `installed`. While it writes:
//  - other kprobe-probe commands wait (a lock on the tracefs directory), and
//    a name that another command created since the plan was made is refused
//    as a clash, never joined to: two commands' places never share an event
//    (perf refuses the same way). An event that gained probes of another
//    writer meanwhile (perf takes no lock) is removed again and refused.
//  - SIGINT, SIGTERM and SIGHUP are held back: one that arrives meanwhile
//    makes it remove what it wrote, say so on stderr, and then the signal
//    takes its course (the default ends the process, as the user asked).
// Errors: the clash, the kernel refusing a definition (its error_log reason
// for our command), an interruption (when a handler let us live).
Status install(const Plan &plan, ProbeEngine &engine, InstalledProbes &installed);

}  // namespace kpp
