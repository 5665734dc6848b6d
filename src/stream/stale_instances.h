// Instances that killed kprobe-probe processes left behind.
//
// A session's instance is named "kprobe-probe-<pid>" (default_instance_name)
// in the initial pid namespace, and "kprobe-probe-<pid>-ns<inode>" in any
// other (a container), where <inode> is the namespace's (/proc/self/ns/pid):
// tracefs is shared by every pid namespace, and pid 123 of a container is
// not pid 123 of the host. A SIGKILL skips every cleanup, and the instance
// stays with its events enabled (an enabled probe cannot be deleted). The
// next session removes such an instance when, and only when, all hold: the
// name is exactly ours (that prefix, then digits, then the namespace part
// or nothing), it records this process's own pid namespace, and the process
// of that pid is gone (kill(pid, 0) says ESRCH). A live process's instance,
// whatever it runs, another namespace's, and every other name are left alone.
// The pid is the run's tool_pid() (util/tool_pid.h): the process the user
// started, which outlives the child doing the work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/tracefs/tracefs.h"

namespace kpp {

inline constexpr const char *kInstancePrefix = "kprobe-probe-";
// The initial pid namespace's inode (PROC_PID_INIT_INO, fixed by the kernel).
inline constexpr uint64_t kInitialPidNamespace = 0xeffffffcu;

struct InstanceOwner {
  int pid = 0;
  uint64_t pid_namespace = kInitialPidNamespace;
};

// The process an instance name records, or nullopt when the name is not ours.
std::optional<InstanceOwner> instance_owner(const std::string &name);
// Its pid alone (0 when the name is not ours).
int instance_owner_pid(const std::string &name);

// This process's pid namespace (its inode), or 0 when /proc does not say.
uint64_t own_pid_namespace();

// The instance name of process `pid` of pid namespace `pid_namespace`.
std::string instance_name_of(InstanceOwner owner);

// This run's own instance name: tool_pid()'s in this pid namespace.
std::string this_runs_instance_name();

// The synthetic events of a run (hist --latency) are global, not in its
// instance: they carry the same owner in their name, "kpp_lat_<pid>" and
// "kpp_lat_<pid>_ns<inode>" (a synthetic event's name is a C identifier).
inline constexpr const char *kSyntheticPrefix = "kpp_lat_";
std::string synthetic_event_name_of(InstanceOwner owner);
std::optional<InstanceOwner> synthetic_event_owner(const std::string &name);
// This run's: tool_pid()'s in this pid namespace.
std::string this_runs_synthetic_event_name();

// Removes the stale instances in `tracefs`, and the stale synthetic
// events (of the same rule), each in the order the kernel needs: the
// instance's triggers (instance_triggers.h), the run's synthetic event, the
// instance. Returns a note for each one removed, naming what it held, and for
// each it could not remove (with why).
std::vector<std::string> remove_stale_instances(const Tracefs &tracefs);

// Removes this run's own instance (named after tool_pid()) and synthetic
// event, for the supervisor when the working process died without removing
// them: a note for each that was there (removed, or why not).
std::vector<std::string> remove_instance_of_this_run(const Tracefs &tracefs);

}  // namespace kpp
