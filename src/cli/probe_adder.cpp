#include "src/cli/probe_adder.h"

#include <algorithm>
#include <set>

#include "src/kernel/kernel_refusals.h"
#include "src/kernel/notrace_refusal.h"
#include "src/sdt/sdt_probe.h"
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
    auto r = spec->point.sdt ? sdt::build_sdt_probe(*spec, build) : build_probe(*spec, *target.debug, build);
    if (!r) return std::move(r).error();
    resolved.push_back(std::move(*r));
  }
  std::set<std::string> taken;
  if (auto defs = engine.list())
    for (const TraceDefinition &d : *defs) taken.insert(d.qualified_name());
  if (Status named = assign_event_names(resolved, target.path, taken, false); !named) return std::move(named).error();

  if (Status written = write_definitions(engine, target, resolved); !written) return std::move(written).error();
  for (const TraceDefinition &d : all_definitions(resolved)) added.hold(d.qualified_name());
  return resolved;
}

Status write_definitions(ProbeEngine &engine, const ProbeTarget &target, std::vector<ResolvedSpec> &resolved) {
  bool kernel = target.path.empty();
  if (kernel)
    if (Status placed = check_running_kernel(resolved); !placed) return placed;
  Status added = engine.add(all_definitions(resolved));
  if (!added && kernel) return explain_failed_registration(std::move(added).error(), all_kernel_sites(resolved));
  return added;
}

}  // namespace kpp
