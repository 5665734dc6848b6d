#include "src/probes/probe_engine.h"

#include <fnmatch.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "src/probes/refctr_clash.h"
#include "src/stream/tracefs_cxx.h"

#include "src/stream/tracefs_mount.h"

namespace kpp {

namespace {

// Reads a top-level tracefs file; a missing file (no kprobes in this kernel)
// reads as empty.
std::string read_tracefs_file(const std::string &dir, const char *name) {
  std::ifstream in(dir + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string kernel_reason() {
  char *log = tracefs_error_last(nullptr);
  std::string reason = log ? log : "";
  free(log);
  while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
  return reason;
}

struct DyneventDeleter {
  void operator()(tracefs_dynevent *e) const { tracefs_dynevent_free(e); }
};
using DyneventPtr = std::unique_ptr<tracefs_dynevent, DyneventDeleter>;

DyneventPtr allocate(const TraceDefinition &def) {
  std::string args = format_fetch_args(def.args);
  const char *format = args.empty() ? nullptr : args.c_str();
  if (def.kind == TraceDefinition::Kind::Uprobe) {
    return DyneventPtr(def.is_return
                           ? tracefs_uretprobe_alloc(def.group.c_str(), def.event.c_str(), def.path.c_str(), def.offset, format)
                           : tracefs_uprobe_alloc(def.group.c_str(), def.event.c_str(), def.path.c_str(), def.offset, format));
  }
  std::string where = def.symbol.empty() ? std::to_string(def.offset) : def.symbol + "+" + std::to_string(def.offset);
  if (def.is_return)
    return DyneventPtr(tracefs_kretprobe_alloc(def.group.c_str(), def.event.c_str(), where.c_str(), format,
                                               def.maxactive.value_or(0)));
  return DyneventPtr(tracefs_kprobe_alloc(def.group.c_str(), def.event.c_str(), where.c_str(), format));
}

// Removes one event by name, all of its probe points. Written as "-:G/E"
// to the file that defined it: libtracefs 1.6's tracefs_dynevent_get() does
// not find uretprobes.
Status destroy_event(const TraceDefinition &def) {
  const char *file = def.kind == TraceDefinition::Kind::Uprobe ? "uprobe_events" : "kprobe_events";
  std::string command = "-:" + def.group + "/" + def.event;
  if (tracefs_instance_file_append(nullptr, file, command.c_str()) < 0) {
    int err = errno;
    if (err == EBUSY)
      return Error("cannot remove " + def.qualified_name() + ": it is enabled or in use",
                   "disable it first (in every tracefs instance that enabled it)");
    std::string reason = kernel_reason();
    return Error("cannot remove " + def.qualified_name() + ": " + (reason.empty() ? std::strerror(err) : reason));
  }
  return Ok{};
}

}  // namespace

// "g:e" for a companion "g:e__entry" / "g:e__exit" (see ResolvedProbe::companions),
// so that deleting an event deletes its companions too; else "".
static std::string companion_owner(const std::string &qualified) {
  for (const std::string suffix : {"__entry", "__exit"})
    if (qualified.size() > suffix.size() &&
        qualified.compare(qualified.size() - suffix.size(), suffix.size(), suffix) == 0)
      return qualified.substr(0, qualified.size() - suffix.size());
  return {};
}

bool event_matches(const std::string &pattern, const std::string &qualified) {
  if (pattern.find(':') == std::string::npos) {
    std::string event = qualified.substr(qualified.find(':') + 1);
    return fnmatch(pattern.c_str(), event.c_str(), 0) == 0;
  }
  return fnmatch(pattern.c_str(), qualified.c_str(), 0) == 0;
}

Result<ProbeEngine> ProbeEngine::open() {
  auto dir = ensure_tracefs();
  if (!dir) return std::move(dir).error();
  // Mounted but not ours to read (not root): say so rather than list nothing.
  if (access(dir->c_str(), R_OK | X_OK) != 0)
    return Error("cannot read tracefs at " + *dir + ": " + std::strerror(errno), "probes need root: run as root");
  return ProbeEngine(*dir);
}

Result<std::vector<TraceDefinition>> ProbeEngine::list() const {
  std::vector<TraceDefinition> out;
  for (const char *file : {"kprobe_events", "uprobe_events"}) {
    std::istringstream lines(read_tracefs_file(tracing_dir_, file));
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      auto def = parse_definition(line);
      if (!def) return Error(std::string("cannot read ") + file + ": " + def.error().message);
      out.push_back(std::move(*def));
    }
  }
  return out;
}

Status ProbeEngine::add(const std::vector<TraceDefinition> &definitions) {
  std::vector<const TraceDefinition *> created;  // events this call created, for rollback
  std::set<std::string> existing;
  if (auto defs = list())
    for (const TraceDefinition &d : *defs) existing.insert(d.qualified_name());
  for (const TraceDefinition &def : definitions) {
    // error_log keeps its last entry, which may be another command's: only
    // an entry this write added is the kernel's reason (a refused reference
    // counter adds none).
    std::string stale_reason = kernel_reason();
    int rc;
    bool kretprobe_maxactive = def.kind == TraceDefinition::Kind::Kprobe && def.is_return && def.maxactive;
    if (kretprobe_maxactive || def.ref_ctr_offset) {
      // libtracefs 1.6 writes a maxactive as "r8::GROUP/EVENT", which the
      // kernel refuses, and has no reference counter (SDT semaphores).
      errno = 0;
      const char *file = def.kind == TraceDefinition::Kind::Kprobe ? "kprobe_events" : "uprobe_events";
      rc = tracefs_instance_file_append(nullptr, file, format_definition(def).c_str()) < 0 ? -1 : 0;
    } else {
      DyneventPtr e = allocate(def);
      rc = e ? tracefs_dynevent_create(e.get()) : -1;
    }
    if (rc != 0) {
      int err = errno;
      std::string reason = kernel_reason();
      if (reason == stale_reason) reason.clear();
      std::string clash;
      if (auto now = list()) clash = reference_counter_clash(def, *now);
      for (auto it = created.rbegin(); it != created.rend(); ++it) (void)destroy_event(**it);
      std::string why = !reason.empty() ? reason : err ? std::strerror(err) : "unknown reason";
      if (!clash.empty()) why += ": " + clash;
      std::string undone = created.empty() ? "" : "; the probes this command added before it were removed again";
      return Error("the kernel refused " + def.qualified_name() + " (" + format_definition(def) + "): " + why,
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

Result<std::vector<std::string>> ProbeEngine::remove(const std::string &pattern) {
  auto defs = list();
  if (!defs) return std::move(defs).error();
  std::vector<std::string> removed;
  std::set<std::string> done;
  for (const TraceDefinition &def : *defs) {
    std::string name = def.qualified_name();
    if (!(event_matches(pattern, name) || event_matches(pattern, companion_owner(name))) || !done.insert(name).second)
      continue;
    Status s = destroy_event(def);
    if (!s) return std::move(s).error();
    removed.push_back(name);
  }
  if (removed.empty()) return Error("\"" + pattern + "\" does not hit any event");
  return removed;
}

std::map<std::string, ProbeEngine::Counts> ProbeEngine::counts(const std::vector<TraceDefinition> &definitions) const {
  std::map<std::string, std::string> group_of;  // event -> group (first seen)
  for (const TraceDefinition &d : definitions) group_of.emplace(d.event, d.group);
  std::map<std::string, Counts> out;
  // kprobe_profile: "  EVENT HITS MISSES"; uprobe_profile: "  PATH EVENT HITS".
  for (const char *file : {"kprobe_profile", "uprobe_profile"}) {
    bool uprobe = file[0] == 'u';
    std::istringstream lines(read_tracefs_file(tracing_dir_, file));
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string path, event;
      Counts c;
      if (uprobe) words >> path;
      words >> event >> c.hits;
      if (!uprobe) words >> c.misses;
      auto g = group_of.find(event);
      if (words.fail() && !uprobe) continue;
      if (g != group_of.end()) out[g->second + ":" + event] = c;
    }
  }
  return out;
}

}  // namespace kpp
