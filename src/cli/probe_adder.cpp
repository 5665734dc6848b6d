#include "src/cli/probe_adder.h"

#include <algorithm>
#include <set>

#include "src/kernel/kernel_refusals.h"
#include "src/kernel/notrace_refusal.h"
#include "src/spec/probe_spec.h"

namespace kpp {

AddedProbes::~AddedProbes() {
  for (const std::string &name : names_) (void)engine_.remove(name);
}

void AddedProbes::hold(const std::string &qualified_name) {
  if (std::find(names_.begin(), names_.end(), qualified_name) == names_.end()) names_.push_back(qualified_name);
}

Result<std::vector<ResolvedSpec>> add_probe_specs(ProbeEngine &engine, ProbeTarget &target,
                                                  const std::vector<std::string> &specs, const BuildOptions &build,
                                                  AddedProbes &added) {
  std::vector<ResolvedSpec> resolved;
  for (const std::string &text : specs) {
    auto spec = parse_probe_spec(text);
    if (!spec) return std::move(spec).error();
    auto r = build_probe(*spec, *target.debug, build);
    if (!r) return std::move(r).error();
    resolved.push_back(std::move(*r));
  }
  std::set<std::string> taken;
  if (auto defs = engine.list())
    for (const TraceDefinition &d : *defs) taken.insert(d.qualified_name());
  if (Status named = assign_event_names(resolved, target.path, taken, false); !named) return std::move(named).error();

  if (target.path.empty())
    if (Status placed = check_running_kernel(resolved); !placed) return std::move(placed).error();
  std::vector<TraceDefinition> defs = all_definitions(resolved);
  if (Status ok = engine.add(defs); !ok)
    return target.path.empty() ? explain_failed_registration(std::move(ok).error(), all_kernel_sites(resolved))
                               : std::move(ok).error();
  for (const TraceDefinition &d : defs) added.hold(d.qualified_name());
  return resolved;
}

}  // namespace kpp
