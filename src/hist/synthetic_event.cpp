#include "src/hist/synthetic_event.h"

#include <cstring>
#include <optional>

#include "src/tracefs/tracefs.h"
#include "util/crash_note.h"

namespace kpp {

SyntheticEvent::~SyntheticEvent() {
  if (definition_.empty()) return;
  if (std::optional<Tracefs> tracefs = Tracefs::mounted()) (void)tracefs->append("synthetic_events", "!" + definition_);
}

Status SyntheticEvent::add(const std::string &definition) {
  std::optional<Tracefs> tracefs = Tracefs::mounted();
  if (!tracefs || !tracefs->exists("synthetic_events"))
    return Error("this kernel has no synthetic events (CONFIG_SYNTH_EVENTS): --latency needs them");
  note_tracefs_changed();  // for the message if the run crashes from here (src/cli/supervisor.h)
  if (int err = tracefs->append("synthetic_events", definition))
    return Error("the kernel refused the synthetic event '" + definition + "': " + std::strerror(err),
                 "see the tracefs error_log");
  definition_ = definition;
  return Ok{};
}

}  // namespace kpp
