// ProbeSpec -> sites (function entry, return, offset, source line) ->
// definitions with fetch-args.
#include "src/definition/probe_builder.h"
#include "src/definition/builder.h"

#include <algorithm>

namespace kpp {

std::vector<TraceDefinition> all_definitions(const std::vector<ResolvedSpec> &specs) {
  std::vector<TraceDefinition> defs;
  for (const ResolvedSpec &r : specs)
    for (const ResolvedProbe &p : r.sites) {
      for (const TraceDefinition &c : p.companions)
        if (std::find(defs.begin(), defs.end(), c) == defs.end()) defs.push_back(c);
      defs.push_back(p.definition);
    }
  return defs;
}

std::vector<KernelSite> all_kernel_sites(std::vector<ResolvedSpec> &specs) {
  // Shared companions come once per site here (all_definitions() writes
  // them once): each copy is checked and rewritten alike.
  std::vector<KernelSite> sites;
  for (ResolvedSpec &r : specs)
    for (ResolvedProbe &p : r.sites) {
      if (p.definition.kind != TraceDefinition::Kind::Kprobe) continue;
      for (TraceDefinition &c : p.companions) sites.push_back({&c, p.companion_placement});
      sites.push_back({&p.definition, p.placement});
    }
  return sites;
}

namespace {

// "main.Price:3" reads as perf reads it, SRC:ALN (a '.' before the ':'):
// when no source file is named so but a function is (Go's "pkg.Func"),
// it is that function's line, FUNC:RLN.
std::optional<ProbeSpec> as_function_line(const ProbeSpec &spec, dwarf::DebugInfo &debug) {
  const ProbePoint &p = spec.point;
  if (p.file.empty() || !p.function.empty() || p.line == 0 || !p.lazy_pattern.empty() || !debug.has_dwarf() ||
      !debug.find_source_file(p.file).empty() || debug.function_symbols(p.file).empty())
    return std::nullopt;
  ProbeSpec function_line = spec;
  function_line.point.function = p.file;
  function_line.point.file.clear();
  return function_line;
}

}  // namespace

Result<ResolvedSpec> build_probe(const ProbeSpec &spec, dwarf::DebugInfo &debug, const BuildOptions &options) {
  if (std::optional<ProbeSpec> function_line = as_function_line(spec, debug))
    return probe_building::Builder(*function_line, debug, options).run();
  return probe_building::Builder(spec, debug, options).run();
}

}  // namespace kpp
