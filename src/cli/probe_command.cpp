// --add, -D, -l, -d: perf probe's own commands.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "src/cli/commands.h"
#include "src/cli/probe_target.h"
#include "src/cli/probe_plan.h"
#include "src/kernel/kallsyms.h"
#include "src/kernel/kprobe_lists.h"
#include "src/probes/list_format.h"
#include "src/probes/probe_engine.h"
#include "src/stream/stale_instances.h"
#include "util/process_root.h"

namespace kpp {

namespace {

// The command print_added() suggests: a trace of the processes -p named,
// or of a run of the program (a library runs inside programs: then every
// process meanwhile, as perf's -a).
std::string suggested_trace(const Plan &plan, bool library, const std::vector<int> &pids, const std::string &event) {
  std::string command = "kprobe-probe trace";
  for (int pid : pids) command += " -p " + std::to_string(pid);
  command += " -e " + event;
  if (!pids.empty()) return command;
  bool runs_itself = !plan.target_path().empty() && !library;
  return command + " -- " + (runs_itself ? plan.target_path() : std::string("sleep 1"));
}

// "Added new events:" and the lines --list would print for them, as perf does.
void print_added(const Plan &plan, bool library, const std::vector<int> &pids) {
  size_t count = 0;
  for (const PlanEvent &e : plan.events())
    if (e.role == PlanEvent::Role::Probe) count += e.sites.size();
  std::fprintf(stderr, "Added new event%s:\n", count > 1 ? "s" : "");
  std::string last;
  for (const PlanEvent &e : plan.events()) {
    if (e.role != PlanEvent::Role::Probe) continue;
    for (const PlanSite &site : e.sites)
      std::fprintf(stderr, "%s\n", format_list_line(plan.definitions()[site.definition], site.point).c_str());
    last = e.qualified_name();
    if (!e.long_event.empty())
      std::fprintf(stderr, "  (event name shortened: '%s' is %zu bytes, the kernel takes at most 63)\n",
                   e.long_event.c_str(), e.long_event.size());
  }
  std::fprintf(stderr, "\nYou can now use it with kprobe-probe, trace-cmd or perf, such as:\n\n\t%s\n\n",
               suggested_trace(plan, library, pids, last).c_str());
  // Uprobes are per file: say so where it surprises, when a process was named.
  if (!pids.empty())
    std::fprintf(stderr, "A uprobe is placed in a file: it fires in every process that runs or maps %s; "
                         "'trace -p' shows only the processes it names.\n",
                 plan.target_path().c_str());
}

// -D prints the plan; --add (and -n, which stops short of writing) plans
// for an install: every kernel site placed on the running kernel and
// checked against what it refuses.
Status add_or_define(const CliOptions &options) {
  bool define_only = !options.definition.empty();
  // Parsed once: opening the target asks of them, planning resolves them.
  const ParsedSpecs specs = parse_probe_specs(define_only ? options.definition : options.add);
  auto target = open_probe_target(options, specs, true);
  if (!target) return std::move(target).error();
  // -D needs no root: name clashes are checked only when tracefs can be read.
  std::optional<ProbeEngine> engine;
  if (auto e = ProbeEngine::open()) engine = std::move(*e);
  else if (!define_only) return std::move(e).error();
  KernelSnapshot snapshot = read_kernel_snapshot(engine ? &*engine : nullptr, *target, !define_only);
  auto planned = plan_specs(specs, options, *target, snapshot, options.force);
  if (!planned) return std::move(planned).error();
  if (define_only) {
    for (const TraceDefinition &def : planned->definitions()) std::printf("%s\n", format_definition(def).c_str());
    return Ok{};
  }
  if (!options.dry_run) {
    InstalledProbes installed(*engine);
    if (Status written = install(*planned, *engine, installed); !written) return written;
    installed.keep();
  }
  if (!options.quiet) print_added(*planned, target->debug && target->debug->elf().is_shared_library(), options.pids);
  return Ok{};
}

// A probe made with -p on a container's process: the path it was placed
// through names that process ("/proc/4242/root/app/server"), and -l says so.
std::string process_note(const TraceDefinition &def) {
  ProcessRootPath split = split_process_root(def.path);
  if (def.kind != TraceDefinition::Kind::Uprobe || !split.pid) return "";
  return "  [" + split.path + " in the root of pid " + std::to_string(split.pid) + "]";
}

// perf probe -l's lines: kprobes, then uprobes, each sorted by the
// kernel's own line of the probe (perf reads them into a sorted list),
// filtered by event name or "group:event".
Status list(const CliOptions &options) {
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  auto all = engine->list_lines();
  if (!all) return std::move(all).error();
  auto counts = engine->probe_counts(*all);
  std::vector<size_t> shown;
  for (size_t i = 0; i < all->size(); ++i)
    if (options.list->empty() || event_matches(*options.list, (*all)[i].definition.qualified_name()))
      shown.push_back(i);
  std::stable_sort(shown.begin(), shown.end(), [&](size_t a, size_t b) {
    const ProbeEngine::ListedProbe &x = (*all)[a], &y = (*all)[b];
    if (x.definition.kind != y.definition.kind) return x.definition.kind == TraceDefinition::Kind::Kprobe;
    return x.line < y.line;
  });
  std::vector<KprobeStatus> statuses;
  if (auto text = read_kprobes_debugfs("list")) statuses = parse_kprobe_list(*text);
  SourceLookup lookup(debug_open_options(options));
  std::optional<Kallsyms> kallsyms;
  bool kallsyms_read = false;
  for (size_t i : shown) {
    const TraceDefinition &def = (*all)[i].definition;
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
    std::optional<uint64_t> hits, misses;
    if (counts[i]) {
      hits = counts[i]->hits;
      if (def.kind == TraceDefinition::Kind::Kprobe) misses = counts[i]->misses;
    }
    std::vector<std::string> flags;
    if (auto status = status_of(statuses, listed)) flags = status->flags;
    if (options.json) {
      std::printf("%s\n", format_list_json(def, point, hits, misses, flags).c_str());
    } else {
      std::printf("%s%s%s\n", format_list_line(def, point, true).c_str(), format_list_status(flags, hits, misses).c_str(),
                  process_note(def).c_str());
    }
  }
  return Ok{};
}

// -d: every match of every pattern is tried alike; each one that could
// not be removed (enabled, in use, no such event) is reported with why, and
// the command fails if there was any.
Status del(const CliOptions &options) {
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  // A killed run's instance, triggers and synthetic event keep its probes
  // in use: removed first, as a session does (stale_instances.h).
  for (const std::string &note : remove_stale_instances(engine->tracefs()))
    std::fprintf(stderr, "kprobe-probe: %s\n", note.c_str());
  std::vector<Error> failures;
  for (const std::string &pattern : options.del) {
    auto removal = engine->remove(pattern);
    if (!removal) {
      failures.push_back(std::move(removal).error());
      continue;
    }
    if (!options.quiet)
      for (const std::string &name : removal->removed) std::fprintf(stderr, "Removed event: %s\n", name.c_str());
    failures.insert(failures.end(), removal->failed.begin(), removal->failed.end());
  }
  if (failures.empty()) return Ok{};
  if (failures.size() == 1) return failures.front();
  for (const Error &e : failures) std::fprintf(stderr, "kprobe-probe: %s\n", e.message.c_str());
  return Error(std::to_string(failures.size()) + " of the events asked for were not removed (see above)",
               failures.front().hint);
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
