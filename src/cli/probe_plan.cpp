#include "src/cli/probe_plan.h"

#include <cstdio>
#include <iterator>

#include "arch/arch.h"
#include "src/cli/build_options.h"
#include "src/definition/fprobe.h"
#include "src/kernel/build_id.h"

namespace kpp {

KernelSnapshot read_kernel_snapshot(const ProbeEngine *engine, const ProbeTarget &target, bool strict) {
  KernelSnapshot snapshot;
  snapshot.strict = strict;
  if (engine)
    if (auto defs = engine->list())
      for (const TraceDefinition &d : *defs) snapshot.taken.insert(d.qualified_name());
  // -D places on the running kernel only with its own vmlinux (an offline
  // vmlinux of another kernel does not place; reading kallsyms costs ~0.1 s).
  if (target.path.empty() && (strict || target.runs_here)) snapshot.kallsyms = Kallsyms::read();
  if (engine && target.path.empty()) {
    std::string text = engine->tracefs().read("README");
    snapshot.fprobe_events = kernel_has_fprobe_events(text);
    snapshot.btf_member_chains = kernel_has_btf_member_chains(text);
  }
  return snapshot;
}

Result<Plan> plan_specs(const ParsedSpecs &specs, const CliOptions &options, ProbeTarget &target,
                        const KernelSnapshot &snapshot, bool allow_suffix) {
  PlanTarget t;
  t.path = target.path;
  t.module = target.module;
  t.debug = target.debug.get();
  t.btf = target.btf.get();
  t.btf_regs = arch::for_machine(running_machine());
  PlanOptions o;
  o.build = build_options_for(options, target);
  o.build.btf_member_chains = snapshot.btf_member_chains;
  o.allow_suffix = allow_suffix;
  o.fprobe = options.fprobe;
  auto planned = plan(specs, t, o, snapshot);
  // What LLVM could read past in the DWARF: worth knowing when a probe
  // lands oddly, or fails (so before the error, too).
  if (options.verbose && target.debug)
    for (const std::string &p : target.debug->provenance().dwarf_problems()) std::fprintf(stderr, "kprobe-probe: DWARF: %s\n", p.c_str());
  if (!planned) return planned;
  if (!options.quiet)
    for (const std::string &w : planned->warnings()) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
  if (options.verbose)
    for (const std::string &n : planned->notes()) std::fprintf(stderr, "kprobe-probe: %s\n", n.c_str());
  return planned;
}

Result<Plan> plan_and_install(const ParsedSpecs &specs, const CliOptions &options, ProbeTarget &target,
                              ProbeEngine &engine, InstalledProbes &installed) {
  auto planned = plan_specs(specs, options, target, read_kernel_snapshot(&engine, target, true), false);
  if (!planned) return planned;
  if (Status s = install(*planned, engine, installed); !s) return std::move(s).error();
  return planned;
}

}  // namespace kpp
