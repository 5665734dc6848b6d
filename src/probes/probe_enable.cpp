// --enable / --disable: the top-level enable switch of existing events, so
// that perf, trace-cmd or a plain `cat trace_pipe` see them fire.
#include <cerrno>
#include <cstring>
#include <set>

#include "src/probes/probe_engine.h"

namespace kpp {

Result<std::vector<std::string>> ProbeEngine::set_enabled(const std::string &pattern, bool enable) {
  auto defs = list();
  if (!defs) return std::move(defs).error();
  std::vector<std::string> changed;
  std::set<std::string> done;
  for (const TraceDefinition &def : *defs) {
    std::string name = def.qualified_name();
    if (!event_matches(pattern, name) || !done.insert(name).second) continue;
    std::string file = "events/" + def.group + "/" + def.event + "/enable";
    if (int err = tracefs_.write(file, enable ? "1" : "0"))
      return Error("cannot " + std::string(enable ? "enable " : "disable ") + name + ": " + std::strerror(err));
    changed.push_back(name);
  }
  if (changed.empty()) return Error("\"" + pattern + "\" does not hit any event");
  return changed;
}

}  // namespace kpp
