// demo: probes on the bundled demo program by source line and by variable,
// runs it, prints each hit decoded and a count per probe (in the live view
// when it has a terminal), and removes its probes again, whatever happens
// in between.
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstdio>
#include <iterator>

#include "src/cli/commands.h"
#include "src/cli/probe_plan.h"
#include "src/cli/probe_target.h"
#include "src/definition/probe_builder.h"
#include "src/output/printer_sink.h"
#include "src/probes/probe_engine.h"
#include "src/stream/session.h"

namespace kpp {

namespace {

// The demo program is built next to us (build tree) or installed beside us:
// <prefix>/libexec/kprobe-probe/kpp_demo for <prefix>/bin/kprobe-probe, so that
// a package installed under another prefix than the build's finds it too.
std::string find_demo_program() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
  dir = dir.substr(0, dir.rfind('/'));
  for (const std::string &candidate : {dir + "/kpp_demo", dir + "/../demo/kpp_demo",
                                       dir + "/../libexec/kprobe-probe/kpp_demo", std::string(KPP_DEMO_PROGRAM)})
    if (access(candidate.c_str(), X_OK) == 0) {
      char resolved[PATH_MAX];  // "/usr/bin/../libexec/..." named as it is
      return realpath(candidate.c_str(), resolved) ? std::string(resolved) : candidate;
    }
  return {};
}

const char *const demo_specs[] = {
    "walk:5 p->name:string i s",  // a line inside the loop: the item, its index, the sum so far
    "add a b",                    // a function entry, by parameter
    "add%return $retval",         // and its return value
};

}  // namespace

Status run_demo_command(const CliOptions &options) {
  std::string program = find_demo_program();
  if (program.empty()) return Error("cannot find the demo program kpp_demo", "build the project first (see README.md)");
  CliOptions probe_options = options;
  probe_options.exec = program;
  std::vector<std::string> specs(std::begin(demo_specs), std::end(demo_specs));
  const ParsedSpecs parsed = parse_probe_specs(specs);
  auto target = open_probe_target(probe_options, parsed);
  if (!target) return std::move(target).error();
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();

  if (isatty(STDOUT_FILENO) && isatty(STDIN_FILENO)) {
    // With a terminal the demo is the live view; scripts and CI get lines.
    CliOptions live = probe_options;
    live.add = specs;
    live.command_line = {program};
    auto status = run_live_command(live);
    if (!status) return std::move(status).error();
    return Ok{};
  }
  InstalledProbes installed(*engine);
  auto planned = plan_and_install(parsed, probe_options, *target, *engine, installed);
  if (!planned) return std::move(planned).error();

  std::printf("kprobe-probe demo: probing %s\n", program.c_str());
  for (const PlanEvent &e : planned->events())
    if (e.role == PlanEvent::Role::Probe)
      std::printf("  %-28s -> %s\n", planned->specs()[e.spec].c_str(),
                  format_definition(planned->definitions()[e.sites.front().definition]).c_str());
  std::printf("\n");
  std::fflush(stdout);

  SessionOptions session;
  session.events = {default_group(target->path) + ":*"};
  session.command = {program};
  PrinterSink printer(PrintFormat::Short, stdout);
  auto summary = run_session(session, {&printer});
  if (!summary) return std::move(summary).error();
  for (const std::string &w : summary->warnings) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());

  std::printf("\nhits per probe:\n");
  for (const auto &[name, hits] : summary->per_event)
    std::printf("  %-28s %llu\n", name.c_str(), static_cast<unsigned long long>(hits));
  return Ok{};
}

}  // namespace kpp
