#include "src/stream/session.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "src/stream/event_stream.h"
#include "src/stream/probe_shapes.h"
#include "src/stream/sink_chain.h"
#include "src/stream/stale_instances.h"
#include "src/stream/stop_signal.h"
#include "src/stream/task_filter.h"
#include "src/stream/trace_instance.h"
#include "src/tracefs/tracefs_cxx.h"
#include "src/tracefs/tracefs_mount.h"
#include "util/monotonic_clock.h"

namespace kpp {

namespace {

using Clock = std::chrono::steady_clock;

Status validate(const SessionOptions &o) {
  if (o.events.empty() && o.stream_events) return Error("no events to trace", "name them with -e GROUP:EVENT (globs allowed)");
  if (o.pid_only && o.command.empty())
    return Error("--pid-only needs a command", "add -- COMMAND [ARGS...]");
  if (o.duration_s < 0) return Error("--duration must not be negative");
  if (!o.target_pids.empty() && !o.command.empty())
    return Error("-p and a command cannot be traced together", "follow running processes (-p) or start one (-- COMMAND)");
  return Ok{};
}

// The probe events of the enabled systems as their format files show them
// (no sites): for sessions that were given no definitions.
std::vector<ProbeShape> shapes_from_formats(const TraceInstance &instance) {
  std::vector<std::string> systems = instance.enabled_systems();
  std::vector<const char *> names;
  for (const std::string &s : systems) names.push_back(s.c_str());
  names.push_back(nullptr);
  tep_handle *tep = tracefs_local_events_system(instance.tracing_dir().c_str(), names.data());
  std::vector<ProbeShape> shapes = probe_shapes_of(tep);
  if (tep) tep_free(tep);
  return shapes;
}

// Enabling an event enables its companions, whatever pattern named it:
// without them its entry values would be missing.
Status enable_companions(TraceInstance &instance, const Companions &companions) {
  std::vector<std::string> wanted;
  for (const EventId &e : instance.enabled())
    for (const std::string &c : companions.of(e.system + ":" + e.name)) wanted.push_back(c);
  for (const std::string &c : wanted) {
    bool on = std::any_of(instance.enabled().begin(), instance.enabled().end(),
                          [&](const EventId &e) { return e.system + ":" + e.name == c; });
    if (!on)
      if (auto r = instance.enable(c); !r) return std::move(r).error();
  }
  return Ok{};
}

bool is_uprobe_event(const EventId &e) {
  tracefs_dynevent *d =
      tracefs_dynevent_get(static_cast<tracefs_dynevent_type>(TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE),
                           e.system.c_str(), e.name.c_str());
  if (!d) return false;
  tracefs_dynevent_free(d);
  return true;
}

// Waits up to `wait_ms` for one of `fds` (-1: none) to become readable, or
// a signal: a session that streams nothing.
void wait_for_any(const std::vector<int> &fds, int wait_ms) {
  std::vector<pollfd> polled;
  for (int fd : fds)
    if (fd >= 0) polled.push_back(pollfd{fd, POLLIN, 0});
  (void)::poll(polled.data(), polled.size(), wait_ms);
}

}  // namespace

Session::Session(const SessionOptions &options) : options_(options) {}

Session::~Session() {
  if (!finished_) (void)finish();
}

TraceInstance &Session::instance() { return *instance_; }
const EventStream &Session::stream() const { return *stream_; }
const Companions &Session::companions() const { return chain_ ? chain_->companions() : companions_; }

Result<std::unique_ptr<Session>> Session::start(const SessionOptions &options, std::vector<EventSink *> sinks) {
  if (Status v = validate(options); !v) return std::move(v).error();
  std::unique_ptr<Session> s(new Session(options));
  Status st = s->setup(std::move(sinks));
  if (!st) {
    auto torn = s->finish();  // removes what setup made; the setup error is the one to report
    return std::move(st).error();
  }
  return s;
}

Status Session::setup(std::vector<EventSink *> sinks) {
  const SessionOptions &opt = options_;
  signals_ = std::make_unique<StopSignalScope>();
  // The processes first: one that cannot be followed is refused before
  // tracefs is touched.
  if (!opt.target_pids.empty()) {
    auto targets = TargetSet::open(opt.target_pids);
    if (!targets) return std::move(targets).error();
    targets_ = std::move(*targets);
    summary_.targets = targets_.describe();
  }
  auto dir = ensure_tracefs();
  if (!dir) return std::move(dir).error();
  summary_.notes = remove_stale_instances(Tracefs(*dir));
  if (!targets_.empty())
    summary_.notes.push_back("traced " + summary_.targets + (opt.target_children ? " and its children" : "") + " only");
  auto inst = TraceInstance::create(opt.instance_name);
  if (!inst) return std::move(inst).error();
  instance_ = std::make_unique<TraceInstance>(std::move(*inst));
  TraceInstance &instance = *instance_;

  tracefs_trace_off(instance.raw());  // nothing recorded until all is set
  if (!opt.clock.empty())
    if (Status c = instance.set_clock(opt.clock); !c) summary_.warnings.push_back(c.error().message);
  if (opt.buffer_size_kb)
    if (Status b = instance.set_buffer_size_kb(opt.buffer_size_kb); !b) return b;
  // The targets' pids before any event or trigger: a hist trigger counts
  // with tracing off, and would count every process's hits until then.
  if (!targets_.empty())
    if (Status p = targets_.filter(instance, opt.target_children); !p) return p;
  // The command is held until tracing is on (release() below); with
  // --pid-only its pid, too, is set before any trigger.
  if (!opt.command.empty()) {
    if (Status c = command_.spawn(opt.command, opt.command_output); !c) return c;
    summary_.command_pid = command_.pid();
    if (opt.pid_only)
      if (Status p = instance.set_event_pid(command_.pid()); !p) return p;
  }
  if (opt.stream_events)
    if (Status e = enable_events(); !e) return e;
  if (!targets_.empty() && opt.stream_events) enable_task_events();
  if (opt.prepare)
    if (Status p = opt.prepare(instance); !p) return p;
  if (opt.stream_events)
    if (Status s = open_stream(std::move(sinks)); !s) return s;
  if (tracefs_trace_on(instance.raw()) != 0) return Error("cannot turn tracing on in instance " + instance.name());
  if (threads_only_)
    if (Status f = targets_.follow_forks(instance); !f) return f;
  started_ = Clock::now();
  deadline_ = started_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.duration_s));
  if (command_.started())
    if (Status r = command_.release(); !r) return r;
  return Ok{};
}

void Session::enable_task_events() {
  // A stream follows every task the targets fork (a thread started
  // between two polls is not missed) and drops their child processes;
  // hist, which streams nothing, has their threads, added as they start.
  // (With threads only, event-fork comes once tracing is on: see follow_forks.)
  // Task exits say when an id may be another process's (task_filter.h).
  // Enabled after enable_events() set the probes' filter, which is not theirs.
  // One the user's -e named too stays theirs: shown (task_filter.h).
  auto own = [this](const char *system, const char *name, bool &user_asked) {
    const std::vector<EventId> &on = instance_->enabled();
    user_asked = std::any_of(on.begin(), on.end(), [&](const EventId &e) { return e.system == system && e.name == name; });
    if (user_asked) return true;
    if (!instance_->enable(std::string(system) + ":" + name)) return false;
    own_events_.push_back(EventId{system, name});
    return true;
  };
  threads_only_ = !options_.target_children && own(TaskFilter::kSystem, TaskFilter::kEvent, task_events_shown_.new_task);
  task_exits_ = own(TaskFilter::kExitSystem, TaskFilter::kExitEvent, task_events_shown_.exit);
}

Status Session::enable_events() {
  const SessionOptions &opt = options_;
  TraceInstance &instance = *instance_;
  for (const auto &pattern : opt.events)
    if (auto r = instance.enable(pattern); !r) return std::move(r).error();
  Companions companions = opt.companions             ? *opt.companions
                          : !opt.probes.empty()      ? Companions::recognise(opt.probes)
                                                     : Companions::recognise(shapes_from_formats(instance));
  if (Status c = enable_companions(instance, companions); !c) return c;
  // Our own reads of the ring buffer are system calls too: a probe on the
  // read path (vfs_read, ksys_read) would record every read we make and
  // the buffer would never drain. The kernel filter drops our own events
  // before they are recorded (the chain drops any that slip through).
  std::string own = "common_pid != " + std::to_string(getpid());
  std::string filter = opt.filter.empty() ? own : "(" + opt.filter + ") && " + own;
  if (Status f = instance.set_filter(filter); !f) return f;
  if (opt.stack) {
    auto on = enable_stacks(filter);
    if (!on) return std::move(on).error();
    stacks_ = std::move(*on);
  }
  companions_ = std::move(companions);
  return Ok{};
}

Status Session::open_stream(std::vector<EventSink *> sinks) {
  bool with_stacks = stacks_.mode != StackMode::Off;
  SinkChainOptions chain{std::move(companions_), getpid(), options_.sites, std::move(stacks_), targets_.ns_pids(),
                         threads_only_, task_exits_, task_events_shown_,
                         targets_.empty() ? nullptr : targets_.retired(),  // else the chain filters nothing
                         options_.enums};
  chain_ = std::make_unique<SinkChain>(std::move(chain), std::move(sinks));
  auto stream = EventStream::open(*instance_, {chain_.get()}, with_stacks);
  if (!stream) return std::move(stream).error();
  stream_ = std::move(*stream);
  return stream_->start();
}

Result<StackJoinOptions> Session::enable_stacks(const std::string &filter) {
  TraceInstance &instance = *instance_;
  StackJoinOptions stacks;
  stacks.mode = StackMode::Expected;
  stacks.symbolizer = options_.symbolizer.get();
  // The trigger has the events' own filter: a trigger without one runs
  // before the event is written, and for the events the filter drops (our
  // own reads) too; with one, it runs after the event, as the stack's
  // place in the buffer must be.
  std::string trigger = "stacktrace if " + filter;
  std::vector<EventId> uprobes;
  for (const EventId &e : instance.enabled()) {
    if (is_uprobe_event(e)) {
      uprobes.push_back(e);
      continue;
    }
    if (Status t = instance.add_trigger(e, trigger); !t)
      return Error("cannot record the kernel stacks of " + e.system + ":" + e.name + " (--stack)",
                   "the kernel refused the `stacktrace` trigger: " + t.error().message);
    stacks.kernel_stack_events.insert(e.system + ":" + e.name);
  }
  if (!uprobes.empty() && options_.user_stack == UserStackMethod::Dwarf && options_.unwinder) {
    if (Status d = start_dwarf_stacks(uprobes, stacks); !d) return std::move(d).error();
    return stacks;
  }
  stacks.user_stacks = !uprobes.empty();
  if (stacks.user_stacks && tracefs_option_enable(instance.raw(), TRACEFS_OPTION_USERSTACKTRACE) != 0)
    return Error("cannot record the user stacks of uprobe events (--stack): the instance's userstacktrace option "
                 "cannot be set");
  return stacks;
}

namespace {
// The sites of uprobe event `e` as uprobe_events lists them ("PATH:0xOFF",
// a semaphore's "(0xREF)" after it): one per probe of a multi-probe event.
std::vector<UprobeSite> uprobe_sites(const EventId &e) {
  std::vector<UprobeSite> sites;
  auto types = static_cast<unsigned>(TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE);
  tracefs_dynevent **all = tracefs_dynevent_get_all(types, e.system.c_str());
  for (tracefs_dynevent **d = all; d && *d; ++d) {
    char *system = nullptr, *event = nullptr, *prefix = nullptr, *addr = nullptr, *format = nullptr;
    tracefs_dynevent_type type = tracefs_dynevent_info(*d, &system, &event, &prefix, &addr, &format);
    std::string where = addr ? addr : "";
    bool ours = event && e.name == event;
    free(system), free(event), free(prefix), free(addr), free(format);
    size_t colon = where.rfind(':');
    if (!ours || colon == std::string::npos) continue;
    UprobeSite site{where.substr(0, colon), std::strtoull(where.c_str() + colon + 1, nullptr, 16),
                    type == TRACEFS_DYNEVENT_URETPROBE};
    sites.push_back(std::move(site));
  }
  tracefs_dynevent_list_free(all);
  return sites;
}
}  // namespace

Status Session::start_dwarf_stacks(const std::vector<EventId> &uprobes, StackJoinOptions &stacks) {
  PerfUserStacksOptions perf;
  perf.window = options_.stack_window;
  std::vector<std::string> names;  // of each site
  for (const EventId &e : uprobes) {
    std::vector<UprobeSite> sites = uprobe_sites(e);
    if (sites.empty()) return Error("cannot find the uprobe definition of " + e.system + ":" + e.name + " in uprobe_events");
    for (UprobeSite &site : sites) {
      perf.sites.push_back(std::move(site));
      names.push_back(e.system + ":" + e.name);
    }
  }
  auto started = DwarfUserStacks::start(perf, names, options_.unwinder);
  if (!started)
    return Error("cannot sample the user stacks of the uprobe events (--stack): " + started.error().message,
                 started.error().hint.empty() ? "use --user-stack=fp to walk them by frame pointers instead"
                                              : started.error().hint);
  dwarf_stacks_ = std::move(*started);
  stacks.dwarf = dwarf_stacks_.get();
  stacks.dwarf_stack_events.insert(names.begin(), names.end());
  return Ok{};
}

void Session::sum_up_dwarf_stacks() {
  if (!dwarf_stacks_) return;
  dwarf_stacks_->stop();
  for (std::string &n : dwarf_stacks_->take_notes()) summary_.notes.push_back(std::move(n));
  // An event shown without its stack is said, never left to look like a
  // one-frame program; the kernel's part (perf's ring was full) apart.
  uint64_t lost = dwarf_stacks_->lost(), none = dwarf_stacks_->without_stack();
  auto events = [](uint64_t n) { return std::to_string(n) + (n == 1 ? " event" : " events"); };
  if (lost)
    summary_.warnings.push_back("perf lost " + std::to_string(lost) +
                                " user stack samples (PERF_RECORD_LOST: its ring was full): their events have none");
  if (none)
    summary_.warnings.push_back(events(none) + " came without a user stack" +
                                (lost ? std::string(" (perf lost samples, above)")
                                      : std::string(" (no perf sample of their hit, or it did not unwind)")));
}

Result<SessionState> Session::step(int max_wait_ms, int wake_fd) {
  if (stop_requested()) {
    summary_.interrupted = true;
    summary_.signal = stop_signal();
    return SessionState::Interrupted;
  }
  if (command_.started() && command_.reap(false) && options_.end_with_command) return SessionState::CommandExited;
  if (!targets_.empty()) {
    if (Status r = retire_targets(); !r) return std::move(r).error();
    if (targets_.all_exited() && options_.end_with_command) {
      summary_.targets_exited = true;
      return SessionState::TargetsExited;
    }
    if (Status r = targets_.refresh(*instance_); !r) return std::move(r).error();
  }
  int wait_ms = max_wait_ms;
  if (options_.duration_s > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
    if (left <= 0) {
      summary_.duration_elapsed = true;
      return SessionState::DurationElapsed;
    }
    wait_ms = static_cast<int>(std::min<long long>(wait_ms, left));
  }
  std::vector<int> fds = targets_.wake_fds();
  fds.push_back(command_.wake_fd());
  fds.push_back(wake_fd);
  if (!stream_) {
    wait_for_any(fds, wait_ms);
    return SessionState::Running;
  }
  // A target that exited while we waited is retired before its events are
  // delivered: one of its pid's next process's events must not pass.
  if (!targets_.empty()) {
    wait_for_any(fds, wait_ms);
    if (Status r = retire_targets(); !r) return std::move(r).error();
    wait_ms = 0;
  }
  auto r = stream_->poll(wait_ms, fds);
  if (!r) return std::move(r).error();
  return SessionState::Running;
}

Status Session::retire_targets() {
  // Event times are CLOCK_MONOTONIC on the "mono" trace clock only.
  uint64_t now = options_.clock == "mono" ? monotonic_ns() : 0;
  return targets_.retire_exited(*instance_, now);
}

Result<SessionSummary> Session::finish() {
  if (finished_) return Error("the session is already finished");
  finished_ = true;
  SessionSummary &sum = summary_;
  if (started_ != Clock::time_point{}) sum.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  Status failure = Ok{};
  // Stop recording, drain what is left, finish the sinks (trace.dat gets
  // its final offsets), close the readers, end the command, remove the
  // instance. The first error wins; later steps still run.
  if (instance_) {
    (void)instance_->disable_all();
    if (instance_->raw()) tracefs_trace_off(instance_->raw());
  }
  sum_up_dwarf_stacks();  // before the flush: the last events take their stacks
  if (stream_) {
    if (auto r = stream_->flush(); !r && failure) failure = std::move(r).error();
    if (Status st = stream_->finish(); !st && failure) failure = st;
    const Companions &companions = chain_->companions();
    // The summary counts what was shown (the tool's own reads and the
    // companions folded into their probes are not).
    sum.events = chain_->shown();
    const std::string tasks = std::string(TaskFilter::kSystem) + ":" + TaskFilter::kEvent;
    const std::string exits = std::string(TaskFilter::kExitSystem) + ":" + TaskFilter::kExitEvent;
    for (const auto &[k, v] : stream_->counts())
      if (companions.role_of(k) == CompanionRole::None && !(k == tasks && !task_events_shown_.new_task && threads_only_) &&
          !(k == exits && !task_events_shown_.exit && task_exits_))
        sum.per_event.emplace_back(k, v);
    std::sort(sum.per_event.begin(), sum.per_event.end());
    sum.bytes_read = stream_->bytes_read();
    for (int cpu = 0; cpu < stream_->cpus(); ++cpu) {
      sum.lost_per_cpu.push_back(stream_->lost(cpu));
      if (stream_->lost(cpu))
        sum.warnings.push_back("lost " + std::to_string(stream_->lost(cpu)) + " events on cpu" + std::to_string(cpu));
      else if (stream_->lost_unknown(cpu))
        sum.warnings.push_back("lost events on cpu" + std::to_string(cpu) + " (the kernel did not say how many)");
    }
    stream_->close();
  }
  if (command_.started()) {
    command_.stop(sum.signal);
    sum.command = command_.end();
    sum.command_name = command_.name().substr(command_.name().rfind('/') + 1);
  }
  if (instance_)
    if (Status st = instance_->close(); !st && failure) failure = st;
  signals_.reset();
  if (!failure) return std::move(failure).error();
  return sum;
}

Result<SessionSummary> run_session(const SessionOptions &options, const std::vector<EventSink *> &sinks) {
  auto session = Session::start(options, sinks);
  if (!session) return std::move(session).error();
  for (;;) {
    auto state = (*session)->step(options.poll_interval_ms);
    if (!state) {
      auto torn = (*session)->finish();
      return std::move(state).error();
    }
    if (*state != SessionState::Running) break;
  }
  return (*session)->finish();
}

}  // namespace kpp
