// hist: counts and sums per key, aggregated by the kernel (hist triggers) in
// our own instance; nothing is streamed. The triggers and the instance go on
// every exit path (TraceInstance::close removes them).
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "src/cli/commands.h"
#include "src/hist/hist_request.h"
#include "src/hist/hist_table.h"
#include "src/hist/latency.h"
#include "src/hist/synthetic_event.h"
#include "src/probes/probe_engine.h"
#include "src/stream/stop_signal.h"
#include "src/stream/trace_instance.h"

namespace kpp {

namespace {

Result<HistRequest> request_from(const CliOptions &options) {
  HistRequest request;
  for (const std::string &by : options.hist_by) {
    auto key = parse_hist_key(by);
    if (!key) return std::move(key).error();
    request.keys.push_back(std::move(*key));
  }
  if (request.keys.empty()) return Error("hist needs at least one --by FIELD", "e.g. kprobe-probe hist -e probe:vfs_read --by comm");
  for (const std::string &sum : options.hist_sum) {
    if (Status s = check_hist_field("--sum", sum); !s) return std::move(s).error();
    request.sums.push_back(sum);
  }
  if (Status s = check_hist_filter(options.filter); !s) return std::move(s).error();
  request.filter = options.filter;
  return request;
}

// The one event -e names (a histogram is per event).
Result<EventId> one_event(const TraceInstance &instance, const std::string &pattern) {
  auto events = instance.match(pattern);
  if (!events) return std::move(events).error();
  if (events->size() != 1) {
    std::string names;
    for (const EventId &e : *events) names += (names.empty() ? "" : ", ") + e.system + ":" + e.name;
    return Error("-e " + pattern + " names " + std::to_string(events->size()) + " events (" + names +
                     "); a histogram is of one event",
                 "name one: -e GROUP:EVENT");
  }
  return events->front();
}

Status check_hist_support(const TraceInstance &instance, const EventId &event) {
  if (instance.has_event_file(event, "hist")) return Ok{};
  return Error("this kernel has no hist triggers (CONFIG_HIST_TRIGGERS is off): it cannot count in place",
               "count in user space instead: kprobe-probe live -e " + event.system + ":" + event.name +
                   " (its histograms), or kprobe-probe trace -e ... --json | jq");
}

// FUNC's entry and return probes among the dynamic events (kernel probes).
Result<std::pair<EventId, EventId>> latency_events(const std::string &func) {
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  auto defs = engine->list();
  if (!defs) return std::move(defs).error();
  std::optional<EventId> entry, ret;
  for (const TraceDefinition &d : *defs) {
    if (d.kind != TraceDefinition::Kind::Kprobe || d.symbol != func || d.offset != 0) continue;
    if (d.is_return && !ret) ret = EventId{d.group, d.event};
    if (!d.is_return && !entry) entry = EventId{d.group, d.event};
  }
  if (!entry || !ret)
    return Error("--latency " + func + ": " + (entry ? "no return probe" : ret ? "no entry probe" : "no entry and return probes") +
                     " on " + func,
                 "add them first: kprobe-probe --add '" + func + "' --add '" + func + "%return'");
  return std::make_pair(*entry, *ret);
}

// Waits for --duration or Ctrl-C/SIGTERM, whichever comes first.
void wait_until_stopped(double duration_s) {
  StopSignalScope signals;
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(duration_s);
  while (!stop_requested()) {
    int wait_ms = 200;
    if (duration_s > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
      if (left <= 0) break;
      wait_ms = static_cast<int>(std::min<long long>(left, wait_ms));
    }
    poll(nullptr, 0, wait_ms);
  }
}

Status print_table(const TraceInstance &instance, const EventId &event, const HistRequest &request, bool json) {
  auto text = instance.read_event_file(event, "hist");
  if (!text) return std::move(text).error();
  auto table = parse_hist(*text, request);
  if (!table) return std::move(table).error();
  merge_by_comm(*table, request);
  std::string out = json ? format_hist_json(*table, request) : format_hist_text(*table, request);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return Ok{};
}

Status run_latency(const CliOptions &options) {
  auto events = latency_events(options.hist_latency);
  if (!events) return std::move(events).error();
  SyntheticEvent synthetic;
  auto instance = TraceInstance::create();
  if (!instance) return std::move(instance).error();
  if (Status s = check_hist_support(*instance, events->first); !s) return s;
  LatencyTriggers t = latency_triggers(events->first, std::to_string(getpid()));
  if (Status s = synthetic.add(t.synthetic_definition); !s) return s;
  EventId synth{"synthetic", t.synthetic_name};
  if (Status s = instance->add_trigger(events->first, t.entry_trigger); !s) return s;
  if (Status s = instance->add_trigger(events->second, t.return_trigger); !s) return s;
  if (Status s = instance->add_trigger(synth, hist_trigger(t.histogram)); !s) return s;
  if (!options.quiet)
    std::fprintf(stderr, "kprobe-probe: timing %s:%s -> %s:%s in the kernel; %s\n", events->first.system.c_str(),
                 events->first.name.c_str(), events->second.system.c_str(), events->second.name.c_str(),
                 options.duration > 0 ? "until --duration ends" : "Ctrl-C to stop");
  wait_until_stopped(options.duration);
  Status printed = print_table(*instance, synth, t.histogram, options.json);
  Status closed = instance->close();
  if (!printed) return printed;
  return closed;
}

}  // namespace

Status run_hist_command(const CliOptions &options) {
  if (!options.command_line.empty())
    return Error("hist does not run a command yet", "start the workload yourself and give --duration S");
  if (!options.hist_latency.empty()) return run_latency(options);
  if (options.events.size() != 1) return Error("hist needs one -e GROUP:EVENT (or --latency FUNC)");
  auto request = request_from(options);
  if (!request) return std::move(request).error();
  auto instance = TraceInstance::create();
  if (!instance) return std::move(instance).error();
  auto event = one_event(*instance, options.events.front());
  if (!event) return std::move(event).error();
  if (Status s = check_hist_support(*instance, *event); !s) return s;
  if (Status s = instance->add_trigger(*event, hist_trigger(*request)); !s) return s;
  if (!options.quiet)
    std::fprintf(stderr, "kprobe-probe: counting %s:%s in the kernel; %s\n", event->system.c_str(), event->name.c_str(),
                 options.duration > 0 ? "until --duration ends" : "Ctrl-C to stop");
  wait_until_stopped(options.duration);
  Status printed = print_table(*instance, *event, *request, options.json);
  Status closed = instance->close();
  if (!printed) return printed;
  return closed;
}

}  // namespace kpp
