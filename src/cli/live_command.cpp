// live: the command line's side of the live view (src/live/live_view.h):
// the probes --add installs for the view's lifetime, the events to watch,
// and the summary printed once the terminal is the user's again.
#include <unistd.h>

#include <cstdio>
#include <set>

#include "src/cli/commands.h"
#include "src/cli/probe_plan.h"
#include "src/cli/session_report.h"
#include "src/cli/probe_target.h"
#include "src/live/live_view.h"

namespace kpp {

namespace {

// The events to enable: the probes added, then -e patterns, else every
// dynamic event that exists.
std::vector<std::string> event_patterns(const CliOptions &options, const InstalledProbes &added,
                                        const std::vector<TraceDefinition> &defs) {
  std::vector<std::string> patterns = added.names();
  patterns.insert(patterns.end(), options.events.begin(), options.events.end());
  if (!patterns.empty()) return patterns;
  std::set<std::string> seen;
  for (const TraceDefinition &d : defs)
    if (seen.insert(d.qualified_name()).second) patterns.push_back(d.qualified_name());
  return patterns;
}

void print_summary(const CliOptions &options, const LiveViewSummary &view) {
  const SessionSummary &summary = view.session;
  for (const std::string &n : summary.notes) std::fprintf(stderr, "kprobe-probe: %s\n", n.c_str());
  if (options.quiet) return;
  std::fprintf(stderr, "%llu events, %llu lost", static_cast<unsigned long long>(view.events),
               static_cast<unsigned long long>(view.lost));
  if (options.output_given) std::fprintf(stderr, "; recorded to %s", options.output.c_str());
  if (options.keep && !options.add.empty()) std::fprintf(stderr, "; probes kept (--keep)");
  std::fprintf(stderr, "; %llu screens drawn in %.1f s", static_cast<unsigned long long>(view.frames), view.seconds);
  if (summary.command_pid && summary.command.ended)
    std::fprintf(stderr, "; %s %s", summary.command_name.c_str(), summary.command.describe().c_str());
  std::fprintf(stderr, "\n");
}

}  // namespace

Result<int> run_live_command(const CliOptions &options) {
  if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
    return Error("the live view needs a terminal (stdin and stdout are not both a TTY)",
                 "use 'kprobe-probe trace' for decoded lines or 'kprobe-probe record' for a trace.dat");
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  InstalledProbes added(*engine);  // before the session: removed after it is gone
  if (!options.add.empty()) {
    const ParsedSpecs specs = parse_probe_specs(options.add);
    auto target = open_probe_target(options, specs, true);
    if (!target) return std::move(target).error();
    auto planned = plan_and_install(specs, options, *target, *engine, added);
    if (!planned) return std::move(planned).error();
  }
  auto defs = engine->list();
  if (!defs) return std::move(defs).error();
  LiveViewOptions view;
  // The events this view added (or -e's): computed before --keep lets go of them.
  view.events = event_patterns(options, added, *defs);
  if (options.keep) added.keep();
  if (view.events.empty())
    return Error("there are no probe events to watch",
                 "add some with --add (e.g. kprobe-probe live -x PROG --add FUNC), or try 'kprobe-probe demo'");
  view.filter = options.filter;
  view.command = options.command_line;
  view.target_pids.assign(options.pids.begin(), options.pids.end());
  view.target_children = options.children;
  if (options.output_given) view.output = options.output;
  view.debug_files = std::make_shared<dwarf::OpenedFiles>(debug_open_options(options));
  view.sites = event_sites(*defs, view.events, view.debug_files);
  view.enums = event_enums(*defs, view.events, *view.debug_files);
  view.stack = options.stack;
  SessionOptions stacks;
  set_stack_options(options, stacks, *defs);
  view.symbolizer = stacks.symbolizer;
  view.user_stack = stacks.user_stack;
  view.stack_window = stacks.stack_window;
  view.unwinder = stacks.unwinder;
  auto summary = run_live_view(view, *engine, *defs);
  if (!summary) return std::move(summary).error();
  print_summary(options, *summary);
  return exit_status_of(summary->session);
}

}  // namespace kpp
