#include "src/live/live_probes.h"

#include <algorithm>

#include "src/kernel/kprobe_lists.h"
#include "src/probes/latency_sites.h"
#include "src/probes/list_format.h"
#include "src/tracefs/tracefs_cxx.h"
#include "util/strings.h"

namespace kpp {

namespace {

// "walk:5@/src/prog/prog.c" -> "walk:5@prog.c": the table has little room.
std::string short_place(const std::string &where) {
  size_t at = where.find('@');
  if (at == std::string::npos) return where;
  return where.substr(0, at + 1) + basename_of(where.substr(at + 1));
}

std::pair<std::string, std::string> split_id(const std::string &id) {
  size_t colon = id.find(':');
  return {id.substr(0, colon), id.substr(colon + 1)};
}

}  // namespace

LiveProbes::LiveProbes(ProbeEngine &engine, TraceInstance &instance, std::vector<TraceDefinition> definitions,
                       const Companions &companions, std::shared_ptr<dwarf::OpenedFiles> debug_files)
    : engine_(engine),
      instance_(instance),
      defs_(std::move(definitions)),
      companions_(companions),
      debug_files_(std::move(debug_files)) {}

const TraceDefinition *LiveProbes::definition_of(const std::string &id) const {
  for (const TraceDefinition &d : defs_)
    if (d.qualified_name() == id) return &d;
  return nullptr;
}

void LiveProbes::add_rows(tui::LiveModel &model, const std::vector<EventId> &hidden) {
  std::vector<EventId> shown;
  std::vector<const TraceDefinition *> defs;
  for (const EventId &e : instance_.enabled()) {
    if (companions_.role_of(e.system + ":" + e.name) != CompanionRole::None) continue;
    if (std::find(hidden.begin(), hidden.end(), e) != hidden.end()) continue;  // the session's own (-p's task events)
    shown.push_back(e);
    defs.push_back(definition_of(e.system + ":" + e.name));
  }
  SourceLookup lookup(debug_files_);
  std::vector<LatencySite> sites = latency_sites(defs, lookup.files());
  for (size_t i = 0; i < shown.size(); ++i) {
    tui::ProbeInfo info{shown[i].system, shown[i].name, "tracepoint", "", false};
    if (const TraceDefinition *d = defs[i]) {
      info.site = sites[i].key;
      info.where = short_place(lookup.point_of(*d));
      info.is_return = sites[i].is_return;
    }
    model.add_probe(std::move(info));
  }
}

void LiveProbes::refresh(tui::LiveModel &model) const {
  // Kprobe states and misses cost a file read each; skip them without kprobes.
  std::vector<KprobeStatus> states;
  std::vector<TraceDefinition> kprobes;
  for (const TraceDefinition &d : defs_)
    if (d.kind == TraceDefinition::Kind::Kprobe) kprobes.push_back(d);
  std::map<std::string, ProbeEngine::Counts> counts;
  if (!kprobes.empty()) {
    states = parse_kprobe_list(read_kprobes_debugfs("list").value_or(""));
    counts = engine_.counts();
  }
  for (const tui::ProbeRow &row : model.probes()) {
    auto [sys, ev] = split_id(row.id);
    tui::ProbeStatus status = tui::ProbeStatus::Gone;
    if (tracefs_event_file_exists(instance_.raw(), sys.c_str(), ev.c_str(), "enable")) {
      char *text = tracefs_event_file_read(instance_.raw(), sys.c_str(), ev.c_str(), "enable", nullptr);
      status = text && text[0] == '1' ? tui::ProbeStatus::Enabled : tui::ProbeStatus::Disabled;
      free(text);
    }
    const TraceDefinition *d = definition_of(row.id);
    if (d && d->kind == TraceDefinition::Kind::Kprobe) {
      auto state = status_of(states, *d);
      auto has = [&](const char *flag) {
        return state && std::find(state->flags.begin(), state->flags.end(), flag) != state->flags.end();
      };
      if (has("GONE")) status = tui::ProbeStatus::Gone;
      else if (status == tui::ProbeStatus::Enabled && has("OPTIMIZED")) status = tui::ProbeStatus::Optimized;
      else if (status == tui::ProbeStatus::Enabled && has("FTRACE")) status = tui::ProbeStatus::Ftrace;
      model.set_missed(row.id, counts[row.id].misses);
    }
    model.set_status(row.id, status);
  }
}

Result<tui::ProbeStatus> LiveProbes::toggle(const std::string &id, tui::LiveModel &model) {
  int row = model.find(id);
  if (row < 0) return Error("no probe " + id);
  auto [sys, ev] = split_id(id);
  if (!tracefs_event_file_exists(instance_.raw(), sys.c_str(), ev.c_str(), "enable")) {
    model.set_status(id, tui::ProbeStatus::Gone);
    return Error(id + " no longer exists");
  }
  bool on = model.probes()[static_cast<size_t>(row)].status == tui::ProbeStatus::Disabled;
  if (tracefs_event_file_write(instance_.raw(), sys.c_str(), ev.c_str(), "enable", on ? "1" : "0") < 0)
    return Error("cannot " + std::string(on ? "enable " : "disable ") + id + " in instance " + instance_.name());
  refresh(model);
  return model.probes()[static_cast<size_t>(row)].status;
}

}  // namespace kpp
