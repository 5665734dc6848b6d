#include "src/probes/probe_engine.h"

#include <fnmatch.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include "src/definition/definition_text.h"
#include "src/probes/event_users.h"
#include "src/probes/definition_shapes.h"
#include "src/probes/error_log.h"
#include "src/probes/refctr_clash.h"

namespace kpp {

namespace {

std::vector<ErrorLogEntry> read_error_log(const Tracefs &tracefs) { return parse_error_log(tracefs.read("error_log")); }

const char *events_file(const TraceDefinition &def) {
  if (def.fprobe) return "dynamic_events";  // fprobes have no file of their own
  return def.kind == TraceDefinition::Kind::Uprobe ? "uprobe_events" : "kprobe_events";
}

// Removes one event by name, all of its probe points. Written as "-:G/E"
// to the file that defined it: libtracefs 1.6's tracefs_dynevent_get() does
// not find uretprobes.
Status destroy_event(const Tracefs &tracefs, const TraceDefinition &def) {
  std::string command = "-:" + def.group + "/" + def.event;
  auto before = read_error_log(tracefs);
  if (int err = tracefs.append(events_file(def), command)) {
    if (err == EBUSY) return busy_event_error(tracefs, def.group, def.event);
    std::string reason = reason_for_command(before, read_error_log(tracefs), command);
    return Error("cannot remove " + def.qualified_name() + ": " + (reason.empty() ? std::strerror(err) : reason));
  }
  return Ok{};
}

}  // namespace

bool event_matches(const std::string &pattern, const std::string &qualified) {
  // As perf's filter: the event name first, then "group:event" (so that a
  // pattern without ':' like 'grp*' matches a group too).
  std::string event = qualified.substr(qualified.find(':') + 1);
  return fnmatch(pattern.c_str(), event.c_str(), 0) == 0 || fnmatch(pattern.c_str(), qualified.c_str(), 0) == 0;
}

Result<ProbeEngine> ProbeEngine::open() {
  auto tracefs = Tracefs::open();
  if (!tracefs) return std::move(tracefs).error();
  // Mounted but not ours to read (not root): say so rather than list nothing.
  if (access(tracefs->root().c_str(), R_OK | X_OK) != 0)
    return Error("cannot read tracefs at " + tracefs->root() + ": " + std::strerror(errno),
                 "probes need root: run as root");
  return ProbeEngine(std::move(*tracefs));
}

Result<std::vector<ProbeEngine::ListedProbe>> ProbeEngine::list_lines() const {
  std::vector<ListedProbe> out;
  for (const char *file : {"kprobe_events", "uprobe_events", "dynamic_events"}) {
    std::istringstream lines(tracefs_.read(file));
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      // dynamic_events lists every kind; kprobes and uprobes were read from
      // their own files above, fprobes are only here.
      if (std::string_view(file) == "dynamic_events" && line.rfind("f:", 0) != 0) continue;
      auto def = parse_definition(line);
      if (!def) return Error(std::string("cannot read ") + file + ": " + def.error().message);
      out.push_back({std::move(*def), line});
    }
  }
  return out;
}

Result<std::vector<TraceDefinition>> ProbeEngine::list() const {
  auto lines = list_lines();
  if (!lines) return std::move(lines).error();
  std::vector<TraceDefinition> out;
  for (ListedProbe &p : *lines) out.push_back(std::move(p.definition));
  return out;
}

Status ProbeEngine::add(const std::vector<TraceDefinition> &definitions) {
  // Every string is checked before the first write (the planner checked
  // them too; this is the last door before the kernel).
  for (const TraceDefinition &def : definitions)
    if (Status s = check_definition_text(def); !s)
      return Error("refusing to write " + def.qualified_name() + ": " + s.error().message, s.error().hint);
  std::vector<const TraceDefinition *> created;  // events this call created, for rollback
  std::set<std::string> existing;
  if (auto defs = list())
    for (const TraceDefinition &d : *defs) existing.insert(d.qualified_name());
  // The kernel's reason is the entry for our own command that was not in
  // the log before (error_log.h).
  auto log_before = read_error_log(tracefs_);
  for (const TraceDefinition &def : definitions) {
    // Written as the kernel lists it, so that error_log's "Command:" line
    // is this very text (libtracefs 1.6 also writes a kretprobe's
    // maxactive as "r8::GROUP/EVENT", which the kernel refuses, and has no
    // reference counter for SDT semaphores).
    std::string command = format_definition(def);
    if (int err = tracefs_.append(events_file(def), command)) {
      // Only an error_log entry this write added is the kernel's reason (a
      // refused reference counter adds none).
      std::string reason = reason_for_command(log_before, read_error_log(tracefs_), command);
      std::string clash;
      if (auto now = list()) clash = reference_counter_clash(def, *now);
      for (auto it = created.rbegin(); it != created.rend(); ++it) (void)destroy_event(tracefs_, **it);
      std::string why = !reason.empty() ? reason : err ? std::strerror(err) : "unknown reason";
      if (!clash.empty()) why += ": " + clash;
      std::string undone = created.empty() ? "" : "; the probes this command added before it were removed again";
      return Error("the kernel refused " + def.qualified_name() + " (" + command + "): " + why,
                   clash.empty() ? undone.empty() ? "" : undone.substr(2)
                                 : "remove the other probe first (perf probe -d or kprobe-probe -d)" + undone);
    }
    // A second point of the same event (a multi-probe event) is removed with the first.
    if (!existing.count(def.qualified_name())) {
      created.push_back(&def);
      existing.insert(def.qualified_name());
    }
  }
  return Ok{};
}

Result<ProbeEngine::Removal> ProbeEngine::remove(const std::string &pattern) {
  auto defs = list();
  if (!defs) return std::move(defs).error();
  Removal result;
  std::set<std::string> done;
  bool matched = false;
  // Deleting an event deletes its companions too.
  Companions companions = Companions::recognise(probe_shapes(*defs));
  for (const TraceDefinition &def : *defs) {
    std::string name = def.qualified_name(), owner = companions.owner_of(name);
    if (!(event_matches(pattern, name) || (!owner.empty() && event_matches(pattern, owner))) ||
        !done.insert(name).second)
      continue;
    matched = true;
    // Each match is tried the same way; one that cannot go (enabled, in
    // use) is reported and the others still go.
    if (Status s = destroy_event(tracefs_, def); !s) result.failed.push_back(std::move(s).error());
    else result.removed.push_back(name);
  }
  if (!matched) return Error("\"" + pattern + "\" does not hit any event");
  return result;
}

std::vector<std::optional<ProbeEngine::Counts>> ProbeEngine::probe_counts(const std::vector<ListedProbe> &probes) const {
  return counts_by_position(probes, tracefs_.read("kprobe_profile"), tracefs_.read("uprobe_profile"));
}

std::vector<std::optional<ProbeEngine::Counts>> counts_by_position(const std::vector<ProbeEngine::ListedProbe> &probes,
                                                                   const std::string &kprobe_profile,
                                                                   const std::string &uprobe_profile) {
  std::vector<std::optional<ProbeEngine::Counts>> out(probes.size());
  // kprobe_profile: "  EVENT HITS MISSES"; uprobe_profile: "  PATH EVENT HITS".
  for (bool uprobe : {false, true}) {
    std::vector<size_t> mine;  // indexes of `probes` of this kind, in order
    for (size_t i = 0; i < probes.size(); ++i)
      if ((probes[i].definition.kind == TraceDefinition::Kind::Uprobe) == uprobe) mine.push_back(i);
    std::istringstream lines(uprobe ? uprobe_profile : kprobe_profile);
    size_t position = 0;
    for (std::string line; std::getline(lines, line) && position < mine.size(); ++position) {
      std::istringstream words(line);
      std::string path, event;
      ProbeEngine::Counts c;
      if (uprobe) words >> path;
      words >> event >> c.hits;
      if (!uprobe) words >> c.misses;
      const TraceDefinition &d = probes[mine[position]].definition;
      if (words.fail() || event != d.event || (uprobe && path != d.path)) continue;
      out[mine[position]] = c;
    }
  }
  return out;
}

std::map<std::string, ProbeEngine::Counts> ProbeEngine::counts() const {
  std::map<std::string, Counts> out;
  auto probes = list_lines();
  if (!probes) return out;
  auto counts = probe_counts(*probes);
  for (size_t i = 0; i < probes->size(); ++i) {
    if (!counts[i]) continue;
    Counts &sum = out[(*probes)[i].definition.qualified_name()];
    sum.hits += counts[i]->hits;
    sum.misses += counts[i]->misses;
  }
  return out;
}

}  // namespace kpp
