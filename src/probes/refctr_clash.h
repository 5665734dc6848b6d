// Why the kernel refused a uprobe when another probe already sits on the
// same place with another reference counter (or none): the kernel keeps one
// reference counter per probed file offset and refuses the second with
// EINVAL, logging only "Reference counter offset mismatch" to dmesg. An SDT
// marker probed by perf (or by hand) and by us is the usual case.
#pragma once

#include <string>
#include <vector>

#include "src/definition/trace_definition.h"

namespace kpp {

// A sentence naming the probe in `listed` (uprobe_events as it is now) that
// is on `refused`'s file (the same inode) and offset with a different
// reference counter; empty when there is none.
std::string reference_counter_clash(const TraceDefinition &refused, const std::vector<TraceDefinition> &listed);

}  // namespace kpp
