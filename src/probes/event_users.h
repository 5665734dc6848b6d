// Why the kernel keeps an event it was asked to delete (EBUSY): where it is
// enabled and which triggers are on it, at the top level and in each tracefs
// instance. "Disable it first" is right only for the first; a trigger (a
// histogram of `hist`, the variables of `hist --latency`) keeps a disabled
// event too, and is removed from its own trigger file.
#pragma once

#include <string>

#include "src/tracefs/tracefs.h"
#include "util/result.h"

namespace kpp {

// The error for "cannot remove GROUP:EVENT" when the kernel said EBUSY: what
// uses it and what to do, from what `tracefs` shows now.
Error busy_event_error(const Tracefs &tracefs, const std::string &group, const std::string &event);

}  // namespace kpp
