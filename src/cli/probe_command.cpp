// --add, -D, -l, -d: perf probe's own commands.
#include <cstdio>
#include <set>

#include "src/cli/commands.h"
#include "src/cli/probe_target.h"
#include "arch/arch.h"
#include "src/cli/build_options.h"
#include "src/cli/probe_adder.h"
#include "src/definition/btf_probe.h"
#include "src/definition/probe_builder.h"
#include "src/kernel/build_id.h"
#include "src/kernel/kallsyms.h"
#include "src/kernel/kernel_refusals.h"
#include "src/kernel/kprobe_lists.h"
#include "src/probes/list_format.h"
#include "src/probes/probe_engine.h"
#include "src/spec/probe_spec.h"

namespace kpp {

namespace {

// Parses and resolves every spec; the first error stops the command before
// anything is written.
Result<std::vector<ResolvedSpec>> resolve_specs(const std::vector<std::string> &texts, const CliOptions &options,
                                                 ProbeTarget &target) {
  std::vector<ResolvedSpec> resolved;
  BuildOptions build = build_options_for(options, target);
  const arch::Registers *running_regs = arch::for_machine(running_machine());
  for (const std::string &text : texts) {
    auto spec = parse_probe_spec(text);
    if (!spec) return std::move(spec).error();
    if (!target.debug && !running_regs) return Error("no register table for this machine, which BTF probes need");
    auto r = target.debug ? build_probe(*spec, *target.debug, build)
                          : build_btf_probe(*spec, *target.btf, *running_regs, build);
    if (!r) return std::move(r).error();
    if (!options.quiet)
      for (const std::string &w : r->warnings) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
    resolved.push_back(std::move(*r));
  }
  // Whether the index cache was used, built or rebuilt (and why).
  if (options.verbose && target.debug && !target.debug->index_note().empty())
    std::fprintf(stderr, "kprobe-probe: %s\n", target.debug->index_note().c_str());
  return resolved;
}

std::set<std::string> existing_events(const std::optional<ProbeEngine> &engine) {
  std::set<std::string> names;
  if (!engine) return names;
  if (auto defs = engine->list())
    for (const TraceDefinition &d : *defs) names.insert(d.qualified_name());
  return names;
}

void print_added(const std::vector<ResolvedSpec> &specs, const ProbeTarget &target) {
  size_t count = 0;
  for (const ResolvedSpec &r : specs) count += r.sites.size();
  std::fprintf(stderr, "Added new event%s:\n", count > 1 ? "s" : "");
  std::string last;
  std::set<std::string> told;  // shortened events, said once each
  for (const ResolvedSpec &r : specs) {
    for (const ResolvedProbe &p : r.sites) {
      std::fprintf(stderr, "%s\n", format_list_line(p.definition, p.point).c_str());
      last = p.definition.qualified_name();
      if (!p.long_event.empty() && told.insert(last).second)
        std::fprintf(stderr, "  (event name shortened: '%s' is %zu bytes, the kernel takes at most 63)\n",
                     p.long_event.c_str(), p.long_event.size());
    }
  }
  // A library runs inside programs: the example runs one (and traces every process meanwhile, as perf's -a).
  bool runs_itself = !target.path.empty() && !(target.debug && target.debug->is_shared_library());
  std::string run = runs_itself ? target.path : "sleep 1";
  std::fprintf(stderr,
               "\nYou can now use it with kprobe-probe, trace-cmd or perf, such as:\n\n"
               "\tkprobe-probe trace -e %s -- %s\n\n",
               last.c_str(), run.c_str());
}

Status add_or_define(const CliOptions &options) {
  bool define_only = !options.definition.empty();
  const std::vector<std::string> &texts = define_only ? options.definition : options.add;
  auto target = open_probe_target(options, true);
  if (!target) return std::move(target).error();
  auto resolved = resolve_specs(texts, options, *target);
  if (!resolved) return std::move(resolved).error();

  // -D needs no root: name clashes are checked only when tracefs can be read.
  std::optional<ProbeEngine> engine;
  if (auto e = ProbeEngine::open()) engine = std::move(*e);
  else if (!define_only) return std::move(e).error();
  Status named = assign_event_names(*resolved, target->path, existing_events(engine), options.force);
  if (!named) return named;

  if (define_only) {
    // -D prints what --add would write: on the running kernel's own vmlinux
    // the same re-anchoring (an offline vmlinux of another kernel does not
    // place, and prints as it is; reading kallsyms would cost ~0.1 s).
    if (target->path.empty() && target->runs_here)
      if (auto kallsyms = Kallsyms::read()) {
        std::vector<ResolvedSpec> trial = *resolved;
        std::vector<KernelSite> trial_sites = all_kernel_sites(trial);
        if (place_on_running_kernel(trial_sites, *kallsyms)) *resolved = std::move(trial);
      }
    for (const TraceDefinition &def : all_definitions(*resolved)) std::printf("%s\n", format_definition(def).c_str());
    return Ok{};
  }
  if (options.dry_run) {
    // Checked as --add would be, nothing written.
    if (target->path.empty())
      if (Status placed = check_running_kernel(*resolved); !placed) return placed;
  } else if (Status written = write_definitions(*engine, *target, *resolved); !written) {
    return written;
  }
  if (!options.quiet) print_added(*resolved, *target);
  return Ok{};
}

Status list(const CliOptions &options) {
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  auto defs = engine->list();
  if (!defs) return std::move(defs).error();
  auto counts = engine->counts(*defs);
  std::vector<KprobeStatus> statuses;
  if (auto text = read_kprobes_debugfs("list")) statuses = parse_kprobe_list(*text);
  SourceLookup lookup;
  std::optional<Kallsyms> kallsyms;
  bool kallsyms_read = false;
  for (const TraceDefinition &def : *defs) {
    if (!options.list->empty() && !event_matches(*options.list, def.qualified_name())) continue;
    std::string point = lookup.point_of(def);
    // A probe anchored on _text (a function name the kernel holds more than
    // once) is shown as the function the kernel has there, the anchor kept
    // to tell the copies apart: "proc_single_open@<_text+4111664>". That is
    // also the name debugfs kprobes/list gives it.
    TraceDefinition listed = def;
    if (def.kind == TraceDefinition::Kind::Kprobe && def.symbol == "_text") {
      if (!kallsyms_read) {
        kallsyms = Kallsyms::read();
        kallsyms_read = true;
      }
      if (auto named = kallsyms ? kallsyms->at_text_offset(def.offset) : std::nullopt) {
        listed.symbol = named->first;
        listed.offset = named->second;
        point = named->first + (named->second ? "+" + std::to_string(named->second) : "") + "@<_text+" +
                std::to_string(def.offset) + ">" + (def.is_return ? "%return" : "");
      }
    }
    ProbeEngine::Counts c = counts[def.qualified_name()];
    std::optional<uint64_t> misses;
    if (def.kind == TraceDefinition::Kind::Kprobe) misses = c.misses;
    std::vector<std::string> flags;
    if (auto status = status_of(statuses, listed)) flags = status->flags;
    if (options.json) {
      std::printf("%s\n", format_list_json(def, point, c.hits, misses, flags).c_str());
    } else {
      std::printf("%s%s\n", format_list_line(def, point).c_str(), format_list_status(flags, c.hits, misses).c_str());
    }
  }
  return Ok{};
}

Status del(const CliOptions &options) {
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  for (const std::string &pattern : options.del) {
    auto removed = engine->remove(pattern);
    if (!removed) return std::move(removed).error();
    if (!options.quiet)
      for (const std::string &name : *removed) std::fprintf(stderr, "Removed event: %s\n", name.c_str());
  }
  return Ok{};
}

Status enable_or_disable(const CliOptions &options) {
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  for (bool enable : {true, false}) {
    for (const std::string &pattern : enable ? options.enable : options.disable) {
      auto changed = engine->set_enabled(pattern, enable);
      if (!changed) return std::move(changed).error();
      if (!options.quiet)
        for (const std::string &name : *changed)
          std::fprintf(stderr, "%s event: %s\n", enable ? "Enabled" : "Disabled", name.c_str());
    }
  }
  return Ok{};
}

}  // namespace

Status run_probe_command(const CliOptions &options) {
  if (!options.del.empty()) {
    Status s = del(options);
    if (!s) return s;
  }
  if (!options.add.empty() || !options.definition.empty()) {
    Status s = add_or_define(options);
    if (!s) return s;
  }
  if (!options.enable.empty() || !options.disable.empty()) {
    Status s = enable_or_disable(options);
    if (!s) return s;
  }
  if (options.funcs || !options.vars.empty() || !options.lines.empty()) {
    Status s = run_lookup_command(options);
    if (!s) return s;
  }
  if (options.list) return list(options);
  if (options.del.empty() && options.add.empty() && options.definition.empty() && options.enable.empty() &&
      options.disable.empty() && !options.funcs && options.vars.empty() && options.lines.empty())
    return Error("nothing to do", "add a probe ('kprobe-probe -x PROG FUNC'), list them (-l), or see --help");
  return Ok{};
}

}  // namespace kpp
