// export: the probes' hits, latencies and argument histograms served as
// Prometheus metrics at /metrics while a session runs, as trace runs one.
#include <cstdio>
#include <map>
#include <set>

#include "src/cli/commands.h"
#include "src/cli/session_report.h"
#include "src/cli/probe_target.h"
#include "src/export/export_sink.h"
#include "src/export/metrics_server.h"
#include "src/probes/latency_sites.h"
#include "src/probes/list_format.h"
#include "src/probes/probe_engine.h"
#include "src/stream/session.h"

namespace kpp {

namespace {

// The dynamic events that -e selects, one definition each (an event with
// several probe points is listed once per point).
std::vector<TraceDefinition> selected_probes(const ProbeEngine &engine, const std::vector<std::string> &patterns) {
  std::vector<TraceDefinition> out;
  std::set<std::string> seen;
  auto all = engine.list();
  if (!all) return out;  // the session reports tracefs trouble itself
  for (TraceDefinition &d : *all) {
    std::string id = d.qualified_name();
    bool wanted = false;
    for (const std::string &p : patterns) wanted = wanted || event_matches(p, id);
    if (wanted && seen.insert(id).second) out.push_back(std::move(d));
  }
  return out;
}

ExportPlan plan_of(const std::vector<TraceDefinition> &probes, const CliOptions &options) {
  ExportPlan plan;
  std::vector<const TraceDefinition *> definitions;
  for (const TraceDefinition &d : probes) {
    plan.events.push_back({d.group, d.event});
    definitions.push_back(&d);
  }
  dwarf::OpenedFiles files(debug_open_options(options));
  for (const LatencyPair &p : latency_pairs(definitions, files))
    plan.pairs.push_back({{probes[p.entry].group, probes[p.entry].event}, {probes[p.ret].group, probes[p.ret].event}});
  plan.hist_args = options.hist;
  return plan;
}

// A --hist ARG that no selected probe has is most likely a typo: say so.
void warn_unknown_hist_args(const std::vector<TraceDefinition> &probes, const std::vector<std::string> &hist) {
  for (const std::string &arg : hist) {
    bool found = false;
    for (const TraceDefinition &d : probes)
      for (const FetchArg &a : d.args) found = found || a.name == arg;
    if (!found)
      std::fprintf(stderr, "kprobe-probe: warning: --hist %s: no probe selected by -e has an argument %s\n",
                   arg.c_str(), arg.c_str());
  }
}

// Says where the metrics are once the session is about to record (the
// stream starts its sinks just before tracing goes on): a script that waits
// for this line misses no event.
class ReadyNotice : public EventSink {
 public:
  explicit ReadyNotice(std::string url) : url_(std::move(url)) {}
  bool wants_events() const override { return false; }
  Status on_start(const StreamInfo &) override {
    std::fprintf(stderr, "serving metrics at %s\n", url_.c_str());
    return Ok{};
  }

 private:
  std::string url_;
};

}  // namespace

Result<int> run_export_command(const CliOptions &options) {
  if (options.events.empty())
    return Error("export needs events to count", "give them with -e GROUP:EVENT (globs allowed), see 'kprobe-probe -l'");
  if (options.listen.empty())
    return Error("export needs an address to serve the metrics on",
                 "give it with --listen [HOST:]PORT, e.g. --listen 9464 (127.0.0.1 unless a host is given)");
  auto address = parse_listen_address(options.listen, options.listen_name);
  if (!address) return std::move(address).error();
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();

  std::vector<TraceDefinition> probes = selected_probes(*engine, options.events);
  warn_unknown_hist_args(probes, options.hist);
  ExportSink sink(plan_of(probes, options));
  std::vector<TraceDefinition> kprobes;
  for (const TraceDefinition &d : probes)
    if (d.kind == TraceDefinition::Kind::Kprobe) kprobes.push_back(d);

  // Misses are the kernel's count (kprobe_profile), read when scraped.
  auto render = [&]() {
    if (!kprobes.empty()) {
      std::map<std::string, ProbeEngine::Counts> counts = engine->counts();
      for (const TraceDefinition &d : kprobes)
        if (auto it = counts.find(d.qualified_name()); it != counts.end())
          sink.set_misses({d.group, d.event}, it->second.misses);
    }
    return sink.render();
  };
  auto server = MetricsServer::start(*address, render);
  if (!server) return std::move(server).error();
  // What leaves the host is said, every time: there is no access control.
  if (!is_loopback_host(address->host))
    std::fprintf(stderr,
                 "kprobe-probe: warning: %s is reachable from other hosts, without authentication or TLS: anyone "
                 "who can connect reads the metrics (for open networks see the manual's EXPORT section: a reverse "
                 "proxy with TLS, or node_exporter's textfile collector)\n",
                 (*server)->url().c_str());
  ReadyNotice ready((*server)->url());
  std::vector<EventSink *> sinks{&sink};
  if (!options.quiet) sinks.push_back(&ready);
  auto summary = run_session(session_options_from(options, CommandOutput::Inherit), sinks);
  if (!summary) return std::move(summary).error();
  report_session(*summary, options.quiet);
  return exit_status_of(*summary);
}

}  // namespace kpp
