// The command line's way into the planner (src/plan): what the options and
// the opened target say, as PlanTarget, PlanOptions and KernelSnapshot.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/cli/cli_options.h"
#include "src/cli/probe_target.h"
#include "src/plan/install.h"
#include "src/plan/plan.h"
#include "src/probes/probe_engine.h"

namespace kpp {

// What the running kernel holds: the events that exist (when `engine` can
// read tracefs), and for a kernel target its kallsyms — for an install
// (`strict`) always, for -D only when the vmlinux is the running one's.
KernelSnapshot read_kernel_snapshot(const ProbeEngine *engine, const ProbeTarget &target, bool strict);

// plan() of `specs` against `target` with the options' build settings;
// warnings (unless -q) and, with -v, notes printed on stderr.
Result<Plan> plan_specs(const ParsedSpecs &specs, const CliOptions &options, ProbeTarget &target,
                        const KernelSnapshot &snapshot, bool allow_suffix);

// For the commands that take their probes away again (live, demo): plans
// `specs` strictly, installs them into `installed` and returns the plan.
Result<Plan> plan_and_install(const ParsedSpecs &specs, const CliOptions &options, ProbeTarget &target,
                              ProbeEngine &engine, InstalledProbes &installed);

}  // namespace kpp
