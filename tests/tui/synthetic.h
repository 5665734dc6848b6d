// Synthetic events for the live-view tests: what the stream would deliver
// for the demo program's probes, with chosen times, threads and values.
#pragma once

#include <string>

#include "event/event.h"
#include "tests/common/test_events.h"
#include "tui/live_model.h"

namespace kpp::tui::test {

inline Event make_event(const std::string &name, uint64_t time_ns, int pid = 100, int cpu = 0) {
  Event e = kpp::test_events::test_event("probe_demo", name, pid, time_ns, cpu);
  e.comm = "demo";
  return e;
}

inline Event with_int(Event e, const std::string &field, int64_t v) {
  e.fields.push_back(kpp::test_events::signed_field(field, v));
  return e;
}

inline Event with_uint(Event e, const std::string &field, uint64_t v) {
  e.fields.push_back(kpp::test_events::unsigned_field(field, v));
  return e;
}

inline Event with_string(Event e, const std::string &field, const std::string &v) {
  FieldValue fv;
  fv.kind = FieldKind::String;
  fv.text = v;
  e.fields.push_back({field, fv});
  return e;
}

// The demo's three probes: a line in walk, add's entry and its return.
inline void add_demo_probes(LiveModel &m) {
  m.add_probe({"probe_demo", "walk_L5", "walk:5@kpp_demo.c", "", false});
  m.add_probe({"probe_demo", "add", "add:0@kpp_demo.c", "/bin/demo#add", false});
  m.add_probe({"probe_demo", "add__return", "add%return@kpp_demo.c", "/bin/demo#add", true});
}

}  // namespace kpp::tui::test
