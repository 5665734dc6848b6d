// Text printers for decoded events.
#pragma once

#include <string>

#include "event/event.h"

namespace kpp {

// One line, no newline:
//   "   1234.567890123 [001] prog-4242 probe_prog:walk_L5 name=\"three\" i=1 p=0x7ffc..."
// TIME is seconds.nanoseconds of the trace clock, CPU in brackets, COMM-PID,
// GROUP:EVENT, then name=value per field: strings quoted (C escapes for
// quotes, backslashes and control bytes), signed/unsigned numbers plain, hex
// fields 0x.., arrays {a,b,c}, raw bytes as a quoted \x.. string.
std::string format_event_text(const Event &event);

// The demo's short form, no newline: "walk_L5: name=\"three\" i=1 s=3".
std::string format_event_short(const Event &event);

// Appends "name=value name=value" (the fields part of both forms) to `out`.
void append_fields_text(std::string &out, const Event &event);

}  // namespace kpp
