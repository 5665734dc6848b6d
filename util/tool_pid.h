// The process id a run of the tool goes by.
//
// The work runs in a child of the process the user started (src/cli/supervisor.h),
// but what is named after the run -- its tracefs instance "kprobe-probe-<pid>" -- is
// named after the process the user sees, waits for and signals: the supervisor's.
// That process lives as long as the child, so an instance so named is stale
// exactly when the run is over.
#pragma once

#include <sys/types.h>

namespace kpp {

// The supervisor's pid once set_tool_pid() was called; until then (tests,
// the fuzz targets) this process's own.
pid_t tool_pid();
void set_tool_pid(pid_t pid);

}  // namespace kpp
