// Adding probes for commands that take them away again (demo, live):
// resolve every spec, name them as perf does, add all or none, and remove
// them when the guard goes out of scope -- on errors and interrupts too.
#pragma once

#include <string>
#include <vector>

#include "src/cli/probe_target.h"
#include "src/definition/probe_builder.h"
#include "src/probes/probe_engine.h"
#include "src/util/result.h"

namespace kpp {

// Removes the events it holds when destroyed, unless keep() was called.
// Declare it before anything that enables the events (an enabled event
// cannot be removed), so it is destroyed after them.
class AddedProbes {
 public:
  explicit AddedProbes(ProbeEngine &engine) : engine_(engine) {}
  ~AddedProbes();
  AddedProbes(const AddedProbes &) = delete;
  AddedProbes &operator=(const AddedProbes &) = delete;

  void hold(const std::string &qualified_name);
  void keep() { names_.clear(); }
  // "group:event" of every held event, in the order added.
  const std::vector<std::string> &names() const { return names_; }

 private:
  ProbeEngine &engine_;
  std::vector<std::string> names_;
};

// Writes the definitions of `resolved` to the kernel, all or none. Kernel
// probes are first placed on the running kernel and checked against what it
// refuses (kernel_refusals.h); a registration the kernel refuses anyway gets
// its likely reason.
Status write_definitions(ProbeEngine &engine, const ProbeTarget &target, std::vector<ResolvedSpec> &resolved);

// Parses and resolves `specs` against `target`, names the events (perf's
// defaults, no suffixes: a clash is an error), adds them all or none, and
// hands them to `added`. Errors: a spec that does not parse or resolve,
// a name taken, the kernel refusing a definition.
Result<std::vector<ResolvedSpec>> add_probe_specs(ProbeEngine &engine, ProbeTarget &target,
                                                  const std::vector<std::string> &specs, const BuildOptions &build,
                                                  AddedProbes &added);

}  // namespace kpp
