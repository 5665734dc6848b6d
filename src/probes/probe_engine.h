// ProbeEngine: the kernel's dynamic events (kprobe_events, uprobe_events)
// through libtracefs. The only code that creates or removes probes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/definition/trace_definition.h"
#include "src/util/result.h"

namespace kpp {

class ProbeEngine {
 public:
  // Finds tracefs (mounting it when we are root and it is not mounted).
  static Result<ProbeEngine> open();

  // Every kprobe and uprobe event defined now, in the kernel's order; an
  // event with several probe points appears once per point.
  Result<std::vector<TraceDefinition>> list() const;

  // Creates every definition, or none: when the kernel refuses one, those
  // created before it are removed again and the error names the refused
  // definition with the kernel's reason (from tracefs error_log).
  Status add(const std::vector<TraceDefinition> &definitions);

  // Removes the events whose "group:event" matches `pattern` (a glob; without
  // ':' it matches the event name in any group). Returns their names.
  // Error when nothing matches, or when the kernel refuses (an event in use).
  Result<std::vector<std::string>> remove(const std::string &pattern);

  // Sets the top-level enable switch (events/GROUP/EVENT/enable) of the
  // events matching `pattern`. Returns their names; error when none matches.
  Result<std::vector<std::string>> set_enabled(const std::string &pattern, bool enable);

  // Hit counts by "group:event" for uprobes, and hits and misses for kprobes
  // (kprobe_profile, uprobe_profile). The profiles name events without their
  // group, so `definitions` supplies it.
  struct Counts { uint64_t hits = 0; uint64_t misses = 0; };
  std::map<std::string, Counts> counts(const std::vector<TraceDefinition> &definitions) const;

  const std::string &tracing_dir() const { return tracing_dir_; }

 private:
  explicit ProbeEngine(std::string tracing_dir) : tracing_dir_(std::move(tracing_dir)) {}
  std::string tracing_dir_;
};

// Whether `qualified` ("group:event") matches a --del/-e style pattern.
bool event_matches(const std::string &pattern, const std::string &qualified);

}  // namespace kpp
