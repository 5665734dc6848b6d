// live: the probes, their hits and rates, the latest events, latencies and
// argument values in a terminal, updated as the probes fire. This file is
// the loop that owns the pieces: probes it added, our tracefs instance,
// the event stream feeding the model, the terminal, a traced command.
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <optional>
#include <set>

#include "src/cli/commands.h"
#include "src/cli/live_pages.h"
#include "src/cli/live_probes.h"
#include "src/cli/probe_plan.h"
#include "src/cli/session_report.h"
#include "src/probes/definition_shapes.h"
#include "src/stream/event_stream.h"
#include "src/stream/session.h"
#include "src/stream/stop_signal.h"
#include "src/stream/trace_instance.h"
#include "src/tracedat/tracedat_writer.h"
#include "src/util/strings.h"
#include "tui/keys.h"
#include "tui/render.h"
#include "tui/terminal.h"

namespace kpp {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kDrawInterval = std::chrono::milliseconds(100);  // at most 10 frames/s
constexpr auto kTickInterval = std::chrono::seconds(1);          // rate samples
constexpr size_t kPageBudget = 32u << 20;                        // raw pages kept for `w`

// Feeds the model from the stream: every event counts, drawn or not.
class ModelSink : public EventSink {
 public:
  explicit ModelSink(tui::LiveModel &model) : model_(model) {}
  Status on_event(const Event &event) override {
    model_.on_event(event);
    return Ok{};
  }
  void on_lost(int cpu, int64_t count) override { model_.on_lost(cpu, count); }

 private:
  tui::LiveModel &model_;
};

// "prog running" / "prog exited 0" / "prog killed by SIGKILL"; empty without a command.
std::string command_state(const TracedCommand &command) {
  if (!command.started()) return {};
  return basename_of(command.name()) + " " + command.end().describe();
}

// A name for `w` that does not overwrite anything: trace-live-1.dat, -2, ...
std::string next_snapshot_name() {
  for (int n = 1;; ++n) {
    std::string name = "trace-live-" + std::to_string(n) + ".dat";
    struct stat st;
    if (stat(name.c_str(), &st) != 0) return name;
  }
}

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

// Reads events, keys and ticks until q, a stop signal or an error; draws
// at most every kDrawInterval, and only when something changed. Drawing
// happens between polls: the kernel's ring buffers hold what arrives
// meanwhile, and counts come from the stream, so none are missed.
struct LoopStats {
  uint64_t frames = 0;  // screens drawn
  double seconds = 0;
};

Status run_loop(tui::Terminal &term, Session &session, tui::LiveModel &model, LiveProbes &probes,
                LivePages &pages, LoopStats &stats) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return Error(std::string("epoll: ") + std::strerror(errno));
  struct epoll_event in {};
  in.events = EPOLLIN;
  in.data.fd = term.input_fd();
  epoll_ctl(ep, EPOLL_CTL_ADD, term.input_fd(), &in);

  tui::UiState ui;
  ui.unicode = term.unicode();
  auto now = Clock::now(), started = now;
  auto next_tick = now, last_draw = now - kDrawInterval;
  bool dirty = true;
  Status result = Ok{};
  auto ns_of = [](Clock::time_point t) {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
  };
  while (!stop_requested()) {
    bool quit = false;
    while (auto key = term.read_key()) {
      tui::Intent intent = tui::handle_key(ui, model, *key, tui::pane_lines(model, term.size()));
      switch (intent.kind) {
        case tui::Intent::Kind::Ignored: break;
        case tui::Intent::Kind::Redraw: dirty = true; break;
        case tui::Intent::Kind::Quit: quit = true; break;
        case tui::Intent::Kind::ToggleProbe: {
          auto s = probes.toggle(intent.probe, model);
          ui.message = s ? intent.probe + " " + tui::status_name(*s) : s.error().message;
          dirty = true;
          break;
        }
        case tui::Intent::Kind::WriteTrace: {
          std::string name = next_snapshot_name();
          auto n = pages.write(name);
          ui.message = n ? "wrote " + std::to_string(*n) + " buffered pages to " + name +
                               " (open it with 'trace-cmd report " + name + "')"
                         : "cannot write " + name + ": " + n.error().message;
          dirty = true;
          break;
        }
      }
      if (quit) break;
    }
    if (quit) break;
    now = Clock::now();
    if (now >= next_tick) {
      model.tick(ns_of(now));
      probes.refresh(model);
      model.facts().command = command_state(session.command());
      next_tick = std::max(next_tick + kTickInterval, now);
      dirty = true;
    }
    if (dirty && now - last_draw >= kDrawInterval) {
      term.draw(tui::render_screen(model, ui, term.size()));
      last_draw = now;
      dirty = false;
      ++stats.frames;
    }
    auto until = next_tick;
    if (dirty) until = std::min(until, last_draw + kDrawInterval);
    long wait = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    uint64_t before = session.stream().events();
    auto got = session.step(static_cast<int>(std::clamp(wait, 0L, 100L)), ep);
    if (!got) {
      result = std::move(got).error();
      break;
    }
    if (*got == SessionState::Interrupted) break;
    if (session.stream().events() != before) dirty = true;
  }
  ::close(ep);
  stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace

Result<int> run_live_command(const CliOptions &options) {
  if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
    return Error("the live view needs a terminal (stdin and stdout are not both a TTY)",
                 "use 'kprobe-probe trace' for decoded lines or 'kprobe-probe record' for a trace.dat");
  auto engine = ProbeEngine::open();
  if (!engine) return std::move(engine).error();
  InstalledProbes added(*engine);  // before the instance: removed after it is gone
  if (!options.add.empty()) {
    auto target = open_probe_target(options, true);
    if (!target) return std::move(target).error();
    auto planned = plan_and_install(options.add, options, *target, *engine, added);
    if (!planned) return std::move(planned).error();
  }
  auto defs = engine->list();
  if (!defs) return std::move(defs).error();
  // The events this view added (or -e's): computed before --keep lets go of them.
  std::vector<std::string> patterns = event_patterns(options, added, *defs);
  if (options.keep) added.keep();
  if (patterns.empty())
    return Error("there are no probe events to watch",
                 "add some with --add (e.g. kprobe-probe live -x PROG --add FUNC), or try 'kprobe-probe demo'");

  tui::LiveModel model;
  LivePages pages(kPageBudget);
  ModelSink feed(model);
  std::vector<EventSink *> sinks{&feed, &pages};
  std::unique_ptr<TraceDatWriter> recording;
  if (options.output_given) {
    auto w = TraceDatWriter::create(options.output);
    if (!w) return std::move(w).error();
    recording = std::move(*w);
    sinks.push_back(recording.get());
    model.facts().recording = options.output;
  }
  // The session (and its signal handlers) before the terminal: ncurses
  // keeps handlers that are set. The command's terminal I/O goes to
  // /dev/null so it cannot scribble over the view; the view stays after it exits.
  SessionOptions session_options;
  session_options.events = patterns;
  session_options.filter = options.filter;
  session_options.command = options.command_line;
  session_options.command_output = CommandOutput::Null;
  session_options.end_with_command = false;
  session_options.probes = probe_shapes(*defs);
  session_options.sites = event_sites(*defs, patterns);
  session_options.stack = options.stack;
  session_options.symbolizer = stack_symbolizer(options, *defs);
  auto session = Session::start(session_options, sinks);
  if (!session) return std::move(session).error();
  LiveProbes probes(*engine, (*session)->instance(), *defs, (*session)->companions());
  probes.add_rows(model);
  model.facts().instance = (*session)->instance().name();
  model.facts().cpus = (*session)->stream().cpus();

  Status loop = Ok{};
  LoopStats stats;
  {
    auto term = tui::Terminal::open();
    if (!term) return std::move(term).error();
    loop = run_loop(**term, **session, model, probes, pages, stats);
  }  // the terminal is the user's again before anything is printed

  // Teardown on every path that got here (see session.h); the probes this
  // view added go when `added` is destroyed.
  auto summary = (*session)->finish();
  if (!loop) return std::move(loop).error();
  if (!summary) return std::move(summary).error();
  for (const std::string &n : summary->notes) std::fprintf(stderr, "kprobe-probe: %s\n", n.c_str());
  if (!options.quiet) {
    std::fprintf(stderr, "%llu events, %llu lost", static_cast<unsigned long long>(model.events()),
                 static_cast<unsigned long long>(model.lost()));
    if (recording) std::fprintf(stderr, "; recorded to %s", options.output.c_str());
    if (options.keep && !options.add.empty()) std::fprintf(stderr, "; probes kept (--keep)");
    std::fprintf(stderr, "; %llu screens drawn in %.1f s", static_cast<unsigned long long>(stats.frames), stats.seconds);
    if (summary->command_pid && summary->command.ended)
      std::fprintf(stderr, "; %s %s", summary->command_name.c_str(), summary->command.describe().c_str());
    std::fprintf(stderr, "\n");
  }
  return exit_status_of(*summary);
}

}  // namespace kpp
