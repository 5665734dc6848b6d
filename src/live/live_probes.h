// The live view's link between its model rows and tracefs: what each row
// is (place, attach site from the definition), whether it is enabled in
// our instance, gone, or optimized/on ftrace (kprobes), its kprobe misses,
// and turning it on and off in our instance only.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dwarf/opened_files.h"
#include "src/definition/trace_definition.h"
#include "src/probes/probe_engine.h"
#include "src/stream/companions.h"
#include "src/stream/trace_instance.h"
#include "tui/live_model.h"
#include "util/result.h"

namespace kpp {

class LiveProbes {
 public:
  // `definitions`: the dynamic events that exist (ProbeEngine::list());
  // `companions`: the session's, which get no row (they are joined into
  // their probe's); `debug_files`: the probed programs' debug info, shared
  // with the events' sites.
  LiveProbes(ProbeEngine &engine, TraceInstance &instance, std::vector<TraceDefinition> definitions,
             const Companions &companions, std::shared_ptr<dwarf::OpenedFiles> debug_files);

  // Adds a row for every event the instance enabled, with its place
  // ("walk:5@prog.c" from DWARF, the definition without it, "tracepoint"
  // for static events) and its entry/return pairing site.
  // `hidden`: enabled events that are no probe of the user's (a session's own).
  void add_rows(tui::LiveModel &model, const std::vector<EventId> &hidden = {});

  // Re-reads statuses (enable files of our instance, [GONE], debugfs
  // kprobes/list flags) and kprobe misses into the model.
  void refresh(tui::LiveModel &model) const;

  // Enables or disables "group:event" in our instance; returns the new status.
  Result<tui::ProbeStatus> toggle(const std::string &id, tui::LiveModel &model);

 private:
  const TraceDefinition *definition_of(const std::string &id) const;

  ProbeEngine &engine_;
  TraceInstance &instance_;
  std::vector<TraceDefinition> defs_;
  const Companions &companions_;
  std::shared_ptr<dwarf::OpenedFiles> debug_files_;
};

}  // namespace kpp
