// ProbeEngine: the kernel's dynamic events (kprobe_events, uprobe_events)
// through the tracefs gateway (src/tracefs). The only code that creates or removes probes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/definition/trace_definition.h"
#include "src/tracefs/tracefs.h"
#include "util/result.h"

namespace kpp {

class ProbeEngine {
 public:
  // Finds tracefs (mounting it when we are root and it is not mounted; the
  // root Tracefs::use_root() set, in tests).
  static Result<ProbeEngine> open();

  // Every kprobe and uprobe event defined now, in the kernel's order; an
  // event with several probe points appears once per point.
  Result<std::vector<TraceDefinition>> list() const;

  // The same with the kernel's own line of each probe (kprobe_events first,
  // then uprobe_events, each in the kernel's order).
  struct ListedProbe {
    TraceDefinition definition;
    std::string line;  // as kprobe_events/uprobe_events print it
  };
  Result<std::vector<ListedProbe>> list_lines() const;

  // Creates every definition, or none: when the kernel refuses one, those
  // created before it are removed again and the error names the refused
  // definition with the kernel's reason (from tracefs error_log).
  Status add(const std::vector<TraceDefinition> &definitions);

  // Removes the events matching `pattern` (event_matches) and their
  // entry-value companions. Every match is tried; those the kernel keeps
  // (enabled, in use) are in `failed`, each error naming the event and why.
  // Error when nothing matches or tracefs cannot be read.
  struct Removal {
    std::vector<std::string> removed;
    std::vector<Error> failed;
  };
  Result<Removal> remove(const std::string &pattern);

  // Sets the top-level enable switch (events/GROUP/EVENT/enable) of the
  // events matching `pattern`. Returns their names; error when none matches.
  Result<std::vector<std::string>> set_enabled(const std::string &pattern, bool enable);

  // Hits of uprobes, hits and misses of kprobes (uprobe_profile,
  // kprobe_profile). The profiles name events without their group, but
  // list probes in the order of uprobe_events/kprobe_events: each probe of
  // `probes` (as list_lines() returned them) gets the counts of the profile
  // line at its own position, when that line names its event (and, for a
  // uprobe, its path); else nullopt (unknown: the events changed between
  // the reads). Never another probe's counts.
  struct Counts { uint64_t hits = 0; uint64_t misses = 0; };
  std::vector<std::optional<Counts>> probe_counts(const std::vector<ListedProbe> &probes) const;
  // The counts by "group:event" (a multi-probe event's summed) of every probe
  // whose counts are known, read now.
  std::map<std::string, Counts> counts() const;

  const std::string &tracing_dir() const { return tracefs_.root(); }
  const Tracefs &tracefs() const { return tracefs_; }

 private:
  explicit ProbeEngine(Tracefs tracefs) : tracefs_(std::move(tracefs)) {}
  Tracefs tracefs_;
};

// ProbeEngine::probe_counts() over the profiles' text: each probe gets the
// counts of the line at its own position among the probes of its kind,
// when that line names its event (and path); else nullopt.
std::vector<std::optional<ProbeEngine::Counts>> counts_by_position(const std::vector<ProbeEngine::ListedProbe> &probes,
                                                                   const std::string &kprobe_profile,
                                                                   const std::string &uprobe_profile);

// Whether `qualified` ("group:event") matches a --del/-l/-e style pattern:
// a glob over the event name, or over "group:event" (perf's rule).
bool event_matches(const std::string &pattern, const std::string &qualified);

}  // namespace kpp
