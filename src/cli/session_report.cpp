#include "src/cli/probe_target.h"
#include "src/cli/session_report.h"

#include <cstdio>

#include "src/probes/definition_shapes.h"
#include "src/probes/list_format.h"
#include "src/probes/probe_engine.h"
#include "src/stack/dwarf_unwinder.h"
#include "src/stack/stack_symbolizer.h"
#include "util/strings.h"

namespace kpp {

SessionOptions session_options_from(const CliOptions &options, CommandOutput command_output) {
  SessionOptions s;
  s.events = options.events;
  s.filter = options.filter;
  s.duration_s = options.duration;
  s.pid_only = options.pid_only;
  s.target_pids.assign(options.pids.begin(), options.pids.end());
  s.target_children = options.children;
  s.command = options.command_line;
  s.command_output = command_output;
  std::vector<TraceDefinition> none;
  auto engine = ProbeEngine::open();
  auto defs = engine ? engine->list() : Result<std::vector<TraceDefinition>>(Error("no tracefs"));
  if (defs) {
    s.probes = probe_shapes(*defs);
    auto files = std::make_shared<dwarf::OpenedFiles>(debug_open_options(options));
    s.sites = event_sites(*defs, options.events, files);
    s.enums = event_enums(*defs, options.events, *files);
  }
  set_stack_options(options, s, defs ? *defs : none);
  return s;
}

void set_stack_options(const CliOptions &options, SessionOptions &s, const std::vector<TraceDefinition> &definitions) {
  s.stack = options.stack;
  // record's DWARF stacks go in an option of the trace.dat (user_stack_table.h).
  bool fp = options.user_stack_fp;
  s.user_stack = fp ? UserStackMethod::FramePointers : UserStackMethod::Dwarf;
  s.stack_window = options.stack_window;
  if (!options.stack) return;
  auto symbolizer = std::make_shared<StackSymbolizer>(StackSource::Live, options.vmlinux, debug_open_options(options));
  // A process gone before its stack is named: its uprobe still places the probed binary.
  symbolizer->add_probes(definitions);
  if (!fp) {
    auto unwinder = std::make_shared<DwarfUnwinder>();
    // The unwinder follows the processes' mappings: frames are named after they exit too.
    symbolizer->set_maps_source([unwinder](pid_t pid) { return unwinder->maps_of(pid); });
    s.unwinder = unwinder;
  }
  s.symbolizer = symbolizer;
}

EventSites event_sites(const std::vector<TraceDefinition> &definitions, const std::vector<std::string> &patterns,
                       std::shared_ptr<dwarf::OpenedFiles> files) {
  EventSites sites;
  SourceLookup lookup(std::move(files));
  for (const TraceDefinition &d : definitions) {
    std::string name = d.qualified_name();
    bool wanted = false;
    for (const std::string &p : patterns) wanted = wanted || event_matches(p, name);
    if (!wanted) continue;  // opening debug info costs: only the events traced
    bool uprobe = d.kind == TraceDefinition::Kind::Uprobe;
    sites.add(name, ProbeSite{uprobe ? d.path : "", uprobe ? d.offset : 0, lookup.point_of(d)});
  }
  return sites;
}

namespace {

// The bits a fetch type takes ("s32" -> 32), 0 for another type.
unsigned type_bits(const std::string &type) {
  if (type.size() < 2 || (type[0] != 's' && type[0] != 'u' && type[0] != 'x')) return 0;
  std::string digits = type.substr(1);
  return digits == "8" || digits == "16" || digits == "32" || digits == "64" ? static_cast<unsigned>(std::stoul(digits)) : 0;
}

}  // namespace

EventEnums event_enums(const std::vector<TraceDefinition> &definitions, const std::vector<std::string> &patterns,
                       dwarf::OpenedFiles &files) {
  EventEnums enums;
  for (const TraceDefinition &d : definitions) {
    if (d.kind != TraceDefinition::Kind::Uprobe) continue;
    std::string name = d.qualified_name();
    bool wanted = false;
    for (const std::string &p : patterns) wanted = wanted || event_matches(p, name);
    if (!wanted) continue;
    for (const FetchArg &arg : d.args) {
      const auto &steps = arg.fixup.steps;
      if (steps.empty() || steps.back().op != ValueOp::ShowEnum) continue;
      dwarf::DebugInfo *debug = files.get(d.path);
      auto type = debug ? debug->enumeration(dwarf::TypeRef{steps.back().operand}) : std::nullopt;
      // A handle from a definition on disk names an enum that fits the field, or nothing is named.
      if (type && type->size * 8 <= type_bits(arg.type)) enums.add(name, arg.name, std::move(*type));
    }
  }
  return enums;
}

void report_session_notes(const SessionSummary &summary) {
  for (const std::string &n : summary.notes) std::fprintf(stderr, "kprobe-probe: %s\n", n.c_str());
  for (const std::string &w : summary.warnings) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
}

void report_session(const SessionSummary &summary, bool quiet) {
  report_session_notes(summary);
  if (quiet) return;
  std::fprintf(stderr, "%llu events", static_cast<unsigned long long>(summary.events));
  if (summary.interrupted) std::fprintf(stderr, " (interrupted)");
  if (summary.command_pid && summary.command.ended)
    std::fprintf(stderr, "; %s %s", summary.command_name.c_str(), summary.command.describe().c_str());
  if (summary.targets_exited) std::fprintf(stderr, "; %s exited", summary.targets.c_str());
  std::fprintf(stderr, "\n");
}

int exit_status_of(const SessionSummary &summary) {
  return summary.command_pid && summary.command.ended ? summary.command.status() : 0;
}

}  // namespace kpp
