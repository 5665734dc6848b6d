#include "src/hist/synthetic_event.h"

#include <cerrno>
#include <cstring>

#include "src/stream/tracefs_cxx.h"
#include "util/crash_note.h"

namespace kpp {

SyntheticEvent::~SyntheticEvent() {
  if (!definition_.empty())
    (void)tracefs_instance_file_append(nullptr, "synthetic_events", ("!" + definition_).c_str());
}

Status SyntheticEvent::add(const std::string &definition) {
  if (!tracefs_file_exists(nullptr, "synthetic_events"))
    return Error("this kernel has no synthetic events (CONFIG_SYNTH_EVENTS): --latency needs them");
  note_tracefs_changed();  // for the message if the run crashes from here (src/cli/supervisor.h)
  if (tracefs_instance_file_append(nullptr, "synthetic_events", definition.c_str()) < 0)
    return Error("the kernel refused the synthetic event '" + definition + "': " + std::strerror(errno),
                 "see the tracefs error_log");
  definition_ = definition;
  return Ok{};
}

}  // namespace kpp
