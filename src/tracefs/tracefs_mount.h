// Finding (and if need be mounting) tracefs.
#pragma once

#include <string>

#include "util/result.h"

namespace kpp {

// Where the tool mounts tracefs when it is not mounted.
constexpr const char *kDefaultTracefs = "/sys/kernel/tracing";

// Returns the tracefs directory (usually /sys/kernel/tracing), or the root
// Tracefs::use_root() set (tests).
// If tracefs is not mounted and we run as root, mounts it at
// /sys/kernel/tracing first. Errors: not mounted and not root ("mounting it
// needs root"), or the mount itself failed (with errno text).
Result<std::string> ensure_tracefs();

}  // namespace kpp
