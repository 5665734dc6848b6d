// Instances that killed kprobe-probe processes left behind.
//
// A session's instance is named "kprobe-probe-<pid>" (default_instance_name).
// A SIGKILL skips every cleanup, and the instance stays with its events
// enabled (an enabled probe cannot be deleted). The next session removes
// such an instance when, and only when, both hold: the name is exactly
// ours (that prefix, then digits), and the process of that pid is gone
// (kill(pid, 0) says ESRCH). A live process's instance, whatever it runs,
// and every other name are left alone.
#pragma once

#include <string>
#include <vector>

namespace kpp {

inline constexpr const char *kInstancePrefix = "kprobe-probe-";

// The pid an instance name records, or 0 when the name is not ours.
int instance_owner_pid(const std::string &name);

// Removes the stale instances under `tracing_dir`; returns a note for each
// one removed, and for each it could not remove (with why).
std::vector<std::string> remove_stale_instances(const std::string &tracing_dir);

}  // namespace kpp
