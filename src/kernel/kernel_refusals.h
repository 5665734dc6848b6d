// What the running kernel refuses to probe, checked before anything is
// written, so that a refusal names its reason instead of the kernel's bare
// EINVAL and leaves kprobe_events untouched.
#pragma once

#include <vector>

#include "src/definition/trace_definition.h"
#include "src/kernel/kprobe_lists.h"
#include "src/util/result.h"

namespace kpp {

// Error for the first kernel definition whose symbol is in `blacklist`.
Status check_not_blacklisted(const std::vector<TraceDefinition> &definitions,
                             const std::vector<BlacklistEntry> &blacklist);

}  // namespace kpp
