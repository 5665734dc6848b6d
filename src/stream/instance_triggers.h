// The triggers a dead run left in its tracefs instance, removed in the order
// the kernel needs.
//
// `hist --latency` sets hist triggers that hold variables (the entry's
// timestamp) and actions (the return's onmatch().trace() into a synthetic
// event). A trigger with variables holds its instance (rmdir says EBUSY) and
// the kernel keeps it while another trigger uses its variables; a synthetic
// event stays while a trigger fires it; a probe stays while a trigger is on
// it. So a dead run's instance is emptied first: every trigger file of the
// dynamic events (the only events the tool sets variables on) is truncated
// (O_TRUNC: the kernel's own "remove all", kernel/trace/trace_events_trigger.c,
// which silently keeps a histogram whose variables are still in use), again
// while one still has triggers and the last pass removed some (the users of a
// variable go in the first pass, the variable's owner in the next).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/tracefs/tracefs.h"

namespace kpp {

struct ClearedTriggers {
  std::vector<std::string> events;  // "GROUP:EVENT" whose triggers were removed
  std::vector<std::string> left;    // those whose triggers the kernel kept
};

ClearedTriggers clear_instance_triggers(const Tracefs &tracefs, const std::string &instance);

// "GROUP/EVENT" of each dynamic event (kprobes, uprobes, fprobes, eprobes,
// synthetic events) from dynamic_events, at most `max`.
std::vector<std::string> dynamic_event_dirs(const Tracefs &tracefs, size_t max);

}  // namespace kpp
