// hist: counts and sums per key, aggregated by the kernel (hist triggers) in
// the session's own instance; nothing is streamed. With -- COMMAND it counts
// while the command runs and exits with its status. The triggers and the
// instance go on every exit path (the session's teardown removes them).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include "src/cli/commands.h"
#include "src/cli/session_report.h"
#include "src/hist/event_fields.h"
#include "src/hist/hist_parse.h"
#include "src/hist/hist_request.h"
#include "src/hist/hist_table.h"
#include "src/hist/latency.h"
#include "src/hist/synthetic_event.h"
#include "src/probes/probe_engine.h"
#include "src/stream/session.h"
#include "src/stream/stale_instances.h"
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

// What the session's prepare step set counting, to be read back at the end.
struct Counted {
  EventId event;
  HistRequest request;
};

// The table, paused first so that its rows and its Totals are of one moment
// (an event another CPU was counting as the pause came may still land: a
// table that does not add up is read again, a few times).
Result<HistTable> read_table(TraceInstance &instance, const Counted &counted) {
  if (Status s = instance.write_event_file(counted.event, "trigger", hist_pause_trigger(hist_trigger(counted.request)));
      !s)
    return std::move(s).error();
  for (int attempt = 0;; ++attempt) {
    auto text = instance.read_event_file(counted.event, "hist");
    if (!text) return std::move(text).error();
    auto table = parse_hist(*text, counted.request, HistSnapshot::Still);
    if (table || attempt == 2) return table;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Status print_table(TraceInstance &instance, const Counted &counted, bool json) {
  auto table = read_table(instance, counted);
  if (!table) return std::move(table).error();
  merge_by_comm(*table, counted.request);
  std::string out = json ? format_hist_json(*table, counted.request) : format_hist_text(*table, counted.request);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return Ok{};
}

// -e EVENT --by ...: one hist trigger on the event. Our own reads (of the
// hist file at the end) are not counted, as a session never records them.
std::function<Status(TraceInstance &)> count_event(const CliOptions &options, HistRequest request, Counted &counted) {
  std::string own = "common_pid != " + std::to_string(getpid());
  request.filter = request.filter.empty() ? own : "(" + request.filter + ") && " + own;
  return [&options, request, &counted](TraceInstance &instance) mutable -> Status {
    auto event = one_event(instance, options.events.front());
    if (!event) return std::move(event).error();
    if (Status s = check_hist_support(instance, *event); !s) return s;
    // Which fields are strings: read as such, never summed.
    auto format = instance.read_event_file(*event, "format");
    if (!format) return std::move(format).error();
    if (Status s = apply_event_fields(request, *format); !s) return s;
    if (Status s = instance.add_trigger(*event, hist_trigger(request)); !s) return s;
    counted = Counted{*event, request};
    return Ok{};
  };
}

// --latency FUNC: the entry probe saves a timestamp, the return probe fires
// the synthetic event (already added), whose histogram is counted.
std::function<Status(TraceInstance &)> count_latency(std::pair<EventId, EventId> events, LatencyTriggers t,
                                                     Counted &counted) {
  return [events, t, &counted](TraceInstance &instance) -> Status {
    if (Status s = check_hist_support(instance, events.first); !s) return s;
    EventId synth{"synthetic", t.synthetic_name};
    if (Status s = instance.add_trigger(events.first, t.entry_trigger); !s) return s;
    if (Status s = instance.add_trigger(events.second, t.return_trigger); !s) return s;
    if (Status s = instance.add_trigger(synth, hist_trigger(t.histogram)); !s) return s;
    counted = Counted{synth, t.histogram};
    return Ok{};
  };
}

// "until dd exits", "until --duration ends", "Ctrl-C to stop".
std::string until(const CliOptions &options) {
  if (!options.command_line.empty()) {
    const std::string &c = options.command_line.front();
    return "until " + c.substr(c.rfind('/') + 1) + " exits";
  }
  if (!options.pids.empty()) return std::string("until the processes -p names exit") + (options.duration > 0 ? " or --duration ends" : "");
  return options.duration > 0 ? "until --duration ends" : "Ctrl-C to stop";
}

// The counting runs in the one Session trace and record use (signals, the
// command, --duration, teardown on every path), streaming nothing.
Result<int> count_in_session(const CliOptions &options, std::function<Status(TraceInstance &)> prepare,
                             const Counted &counted, const std::string &what) {
  SessionOptions s;
  s.stream_events = false;
  s.duration_s = options.duration;
  s.pid_only = options.pid_only;
  s.command = options.command_line;
  s.target_pids.assign(options.pids.begin(), options.pids.end());
  s.target_children = options.children;
  // --json on stdout is for a program: the command's output goes to stderr.
  s.command_output = options.json ? CommandOutput::ToStderr : CommandOutput::Inherit;
  s.prepare = std::move(prepare);
  auto session = Session::start(s, {});
  if (!session) return std::move(session).error();
  if (!options.quiet) std::fprintf(stderr, "kprobe-probe: counting %s in the kernel; %s\n", what.c_str(), until(options).c_str());
  Status run = Ok{};
  for (;;) {
    auto state = (*session)->step(200);
    if (!state) run = std::move(state).error();
    if (!state || *state != SessionState::Running) break;
  }
  // The table is read before the session removes the instance (and with it the triggers).
  if (run) run = print_table((*session)->instance(), counted, options.json);
  auto summary = (*session)->finish();
  if (!run) return std::move(run).error();
  if (!summary) return std::move(summary).error();
  report_session_notes(*summary);
  if (!options.quiet && summary->command_pid && summary->command.ended)
    std::fprintf(stderr, "kprobe-probe: %s %s\n", summary->command_name.c_str(), summary->command.describe().c_str());
  if (!options.quiet && summary->targets_exited) std::fprintf(stderr, "kprobe-probe: %s exited\n", summary->targets.c_str());
  return exit_status_of(*summary);
}

Result<int> run_latency(const CliOptions &options) {
  auto events = latency_events(options.hist_latency);
  if (!events) return std::move(events).error();
  // Declared before the session: its triggers go first, then the event.
  SyntheticEvent synthetic;
  LatencyTriggers t = latency_triggers(events->first, this_runs_synthetic_event_name());
  if (Status s = synthetic.add(t.synthetic_definition); !s) return std::move(s).error();
  Counted counted;
  std::string what = events->first.system + ":" + events->first.name + " -> " + events->second.system + ":" +
                     events->second.name;
  return count_in_session(options, count_latency(*events, t, counted), counted, "the time " + what);
}

}  // namespace

Result<int> run_hist_command(const CliOptions &options) {
  if (!options.hist_latency.empty()) return run_latency(options);
  if (options.events.size() != 1) return Error("hist needs one -e GROUP:EVENT (or --latency FUNC)");
  auto request = request_from(options);
  if (!request) return std::move(request).error();
  Counted counted;
  return count_in_session(options, count_event(options, *request, counted), counted, options.events.front());
}

}  // namespace kpp
