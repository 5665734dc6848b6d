// JSON-lines printer for decoded events. The schema is a stable interface,
// documented in Documentation/kprobe-probe.txt (EVENTS: TRACE AND RECORD):
//   {"time_ns":1234567890123,"time":"1.234567890","cpu":1,"comm":"prog","pid":4242,
//    "event":"probe_prog:walk_L5","ip":"0x55d0c3a01149","site":"walk:5@prog.c",
//    "fields":{"name":"three","i":1,"p":140737488}}
// "ip" (the probe's address, in the traced process for uprobes) is there
// for probe events, "site" when the probe's definition is known, "stack"
// (after "fields") when the event has one (--stack).
#pragma once

#include <string>

#include "event/event.h"

namespace kpp {

// One JSON object, no newline. Field values keep their type: signed and
// unsigned (and hex) numbers are JSON numbers (exact 64-bit integers),
// strings are JSON strings (UTF-8 passed through, control bytes and invalid
// bytes escaped as \u00XX), arrays are JSON arrays of numbers, raw bytes are
// a JSON array of byte values.
std::string format_event_json(const Event &event);

}  // namespace kpp
