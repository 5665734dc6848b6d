// The supervisor's removal of the probes its dead working process had noted
// (src/util/crash_note.h): those it was writing (a SIGKILL in the middle of
// a 1,500-probe --add) or held to remove at its end (trace --add ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kpp {

// Removes each of `names` ("group:event") that exists; a note naming what was
// removed and what the kernel kept (the first few of each), or nullopt when
// none existed. `not_noted`: names the note had no room for.
std::optional<std::string> remove_probes(const std::vector<std::string> &names, size_t not_noted);

}  // namespace kpp
