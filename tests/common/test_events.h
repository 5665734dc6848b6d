// Hand-built events for the tests of what consumes them (filters, joins,
// sinks, the live model, the metrics): one builder, so that a new Event
// field is set in one place. Header only; the decoded events of the
// kernel's own buffers are tested in tests/stream/event_decoder_test.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "event/event.h"

namespace kpp::test_events {

// An event `system:name` of thread `pid`, stamped `time_ns` on `cpu`.
inline Event test_event(const std::string &system, const std::string &name, int pid = 100, uint64_t time_ns = 0,
                        int cpu = 0) {
  Event e;
  e.system = system;
  e.name = name;
  e.pid = pid;
  e.time_ns = time_ns;
  e.cpu = cpu;
  return e;
}

// A number field: both readings set, as the decoder sets them.
inline Field number_field(const std::string &name, FieldKind kind, uint64_t bits) {
  Field f;
  f.name = name;
  f.value.kind = kind;
  f.value.u = bits;
  f.value.i = static_cast<int64_t>(bits);
  return f;
}

inline Field signed_field(const std::string &name, int64_t v) {
  return number_field(name, FieldKind::Signed, static_cast<uint64_t>(v));
}

inline Field unsigned_field(const std::string &name, uint64_t v) { return number_field(name, FieldKind::Unsigned, v); }

}  // namespace kpp::test_events
