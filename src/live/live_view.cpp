// The live view's controller: the loop that owns the pieces -- our tracefs
// instance, the event stream feeding the model, the terminal, a traced
// command -- and draws the probes, their hits and rates, the latest events,
// latencies and argument values as the probes fire.
#include "src/live/live_view.h"

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

#include "src/live/kernel_histograms.h"
#include "src/live/live_pages.h"
#include "src/live/live_probes.h"
#include "src/probes/definition_shapes.h"
#include "src/stream/event_stream.h"
#include "src/stream/session.h"
#include "src/stream/stop_signal.h"
#include "src/stream/trace_instance.h"
#include "src/tracedat/tracedat_writer.h"
#include "tui/keys.h"
#include "tui/render.h"
#include "tui/terminal.h"
#include "util/strings.h"

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
// The header's "kpp_demo running", "kpp_demo exited 0"; for -p, the
// processes followed ("pid 7 in the container, 41234 on the host (loop)"),
// and "exited" once none runs.
std::string command_state(const Session &session) {
  const TracedCommand &command = session.command();
  if (command.started()) return basename_of(command.name()) + " " + command.end().describe();
  if (session.targets().empty()) return {};
  return session.targets().describe() + (session.targets().all_exited() ? " exited" : "");
}

// A name for `w` that does not overwrite anything: trace-live-1.dat, -2, ...
std::string next_snapshot_name() {
  for (int n = 1;; ++n) {
    std::string name = "trace-live-" + std::to_string(n) + ".dat";
    struct stat st;
    if (stat(name.c_str(), &st) != 0) return name;
  }
}

struct LoopStats {
  uint64_t frames = 0;  // screens drawn
  double seconds = 0;
};

// Reads events, keys and ticks until q, a stop signal or an error; draws
// at most every kDrawInterval, and only when something changed. Drawing
// happens between polls: the kernel's ring buffers hold what arrives
// meanwhile, and counts come from the stream, so none are missed.
class LiveLoop {
 public:
  LiveLoop(tui::Terminal &term, Session &session, tui::LiveModel &model, LiveProbes &probes, LivePages &pages)
      : term_(term), session_(session), model_(model), probes_(probes), pages_(pages),
        kernel_(Tracefs(session.instance().tracing_dir())) {
    ui_.unicode = term.unicode();
  }

  Status run(LoopStats &stats) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) return Error(std::string("epoll: ") + std::strerror(errno));
    struct epoll_event in {};
    in.events = EPOLLIN;
    in.data.fd = term_.input_fd();
    epoll_ctl(ep, EPOLL_CTL_ADD, term_.input_fd(), &in);
    auto started = Clock::now();
    next_tick_ = started;
    last_draw_ = started - kDrawInterval;
    Status result = Ok{};
    while (!stop_requested() && !handle_keys()) {
      auto now = Clock::now();
      if (now >= next_tick_) tick(now);
      if (dirty_ && now - last_draw_ >= kDrawInterval) draw(now, stats);
      uint64_t before = session_.stream().events();
      auto got = session_.step(wait_ms(), ep);
      if (!got) {
        result = std::move(got).error();
        break;
      }
      if (*got == SessionState::Interrupted) break;
      if (session_.stream().events() != before) dirty_ = true;
    }
    ::close(ep);
    stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return result;
  }

 private:
  // Handles the keys typed since the last poll; true on quit.
  bool handle_keys() {
    while (auto key = term_.read_key()) {
      tui::Intent intent = tui::handle_key(ui_, model_, *key, tui::pane_lines(model_, term_.size()));
      switch (intent.kind) {
        case tui::Intent::Kind::Ignored: break;
        case tui::Intent::Kind::Redraw: dirty_ = true; break;
        case tui::Intent::Kind::Quit: return true;
        case tui::Intent::Kind::ToggleProbe: {
          auto s = probes_.toggle(intent.probe, model_);
          ui_.message = s ? intent.probe + " " + tui::status_name(*s) : s.error().message;
          dirty_ = true;
          break;
        }
        case tui::Intent::Kind::WriteTrace: write_snapshot(); break;
      }
    }
    return false;
  }

  void write_snapshot() {
    std::string name = next_snapshot_name();
    auto n = pages_.write(name);
    ui_.message = n ? "wrote " + std::to_string(*n) + " buffered pages to " + name + " (open it with 'trace-cmd report " +
                          name + "')"
                    : "cannot write " + name + ": " + n.error().message;
    dirty_ = true;
  }

  // Once a second: rates, probe states, the command's state, the kernel's histograms.
  void tick(Clock::time_point now) {
    model_.tick(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count()));
    probes_.refresh(model_);
    model_.set_kernel_histograms(kernel_.read());
    model_.facts().command = command_state(session_);
    next_tick_ = std::max(next_tick_ + kTickInterval, now);
    dirty_ = true;
  }

  void draw(Clock::time_point now, LoopStats &stats) {
    term_.draw(tui::render_screen(model_, ui_, term_.size()));
    last_draw_ = now;
    dirty_ = false;
    ++stats.frames;
  }

  // How long the next poll may wait: until the next tick, or the next
  // frame when one is due; at most 100 ms.
  int wait_ms() const {
    auto until = next_tick_;
    if (dirty_) until = std::min(until, last_draw_ + kDrawInterval);
    long wait = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    return static_cast<int>(std::clamp(wait, 0L, 100L));
  }

  tui::Terminal &term_;
  Session &session_;
  tui::LiveModel &model_;
  LiveProbes &probes_;
  LivePages &pages_;
  KernelHistograms kernel_;
  tui::UiState ui_;
  Clock::time_point next_tick_, last_draw_;
  bool dirty_ = true;
};

}  // namespace

Result<LiveViewSummary> run_live_view(const LiveViewOptions &options, ProbeEngine &engine,
                                      const std::vector<TraceDefinition> &defs) {
  tui::LiveModel model;
  // User stacks unwound from DWARF are in no page: -o and `w` keep them as record does.
  const bool dwarf_user_stacks = options.stack && options.user_stack == UserStackMethod::Dwarf;
  LivePages pages(kPageBudget, dwarf_user_stacks);
  ModelSink feed(model);
  std::vector<EventSink *> sinks{&feed, &pages};
  std::unique_ptr<TraceDatWriter> recording;
  if (!options.output.empty()) {
    TraceDatOptions file;
    file.user_stacks = dwarf_user_stacks;
    auto w = TraceDatWriter::create(options.output, file);
    if (!w) return std::move(w).error();
    recording = std::move(*w);
    sinks.push_back(recording.get());
    model.facts().recording = options.output;
  }
  // The session (and its signal handlers) before the terminal: ncurses
  // keeps handlers that are set. The command's terminal I/O goes to
  // /dev/null so it cannot scribble over the view; the view stays after it exits.
  SessionOptions session_options;
  session_options.events = options.events;
  session_options.filter = options.filter;
  session_options.command = options.command;
  session_options.target_pids = options.target_pids;
  session_options.target_children = options.target_children;
  session_options.command_output = CommandOutput::Null;
  session_options.end_with_command = false;
  session_options.probes = probe_shapes(defs);
  session_options.sites = options.sites;
  session_options.enums = options.enums;
  session_options.stack = options.stack;
  session_options.symbolizer = options.symbolizer;
  session_options.user_stack = options.user_stack;
  session_options.stack_window = options.stack_window;
  session_options.unwinder = options.unwinder;
  auto session = Session::start(session_options, sinks);
  if (!session) return std::move(session).error();
  LiveProbes probes(engine, (*session)->instance(), defs, (*session)->companions(), options.debug_files);
  probes.add_rows(model, (*session)->own_events());
  model.facts().instance = (*session)->instance().name();
  model.facts().cpus = (*session)->stream().cpus();
  model.facts().command = command_state(**session);

  Status loop = Ok{};
  LoopStats stats;
  {
    auto term = tui::Terminal::open();
    if (!term) return std::move(term).error();
    loop = LiveLoop(**term, **session, model, probes, pages).run(stats);
  }  // the terminal is the user's again before anything is printed

  // Teardown on every path that got here (see session.h); the probes the
  // caller added go after this, once the instance is gone.
  auto summary = (*session)->finish();
  if (!loop) return std::move(loop).error();
  if (!summary) return std::move(summary).error();
  return LiveViewSummary{std::move(*summary), model.events(), model.lost(), stats.frames, stats.seconds};
}

}  // namespace kpp
