#include "src/stream/trace_instance.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "src/stream/stale_instances.h"
#include "src/tracefs/tracefs_cxx.h"

#include "src/tracefs/tracefs_mount.h"

namespace kpp {

namespace {

// Every live TraceInstance, for remove_all_trace_instances().
std::mutex &registry_mutex() {
  static std::mutex m;
  return m;
}
std::vector<TraceInstance *> &registry() {
  static std::vector<TraceInstance *> r;
  return r;
}
void registry_replace(TraceInstance *from, TraceInstance *to) {
  std::lock_guard lock(registry_mutex());
  auto &r = registry();
  auto it = std::find(r.begin(), r.end(), from);
  if (it == r.end()) {
    if (to) r.push_back(to);
  } else if (to) {
    *it = to;
  } else {
    r.erase(it);
  }
}

std::vector<std::string> take_list(char **list) {
  std::vector<std::string> out;
  for (char **p = list; p && *p; ++p) out.emplace_back(*p);
  tracefs_list_free(list);
  return out;
}

bool glob_match(const std::string &pattern, const std::string &name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

// tracefs_event_enable() takes regular expressions; event and system names
// are [A-Za-z0-9_.-], so anchoring is all the quoting they need.
std::string exact_regex(const std::string &name) { return "^" + name + "$"; }

}  // namespace

std::string default_instance_name() { return this_runs_instance_name(); }

Result<TraceInstance> TraceInstance::create(const std::string &name_in) {
  auto dir = ensure_tracefs();
  if (!dir) return std::move(dir).error();
  std::string name = name_in.empty() ? default_instance_name() : name_in;
  if (tracefs_instance_exists(name.c_str()))
    return Error("tracefs instance '" + name + "' already exists",
                 "another session may be running; pick another name or remove it with: rmdir " +
                     *dir + "/instances/" + name);
  tracefs_instance *inst = tracefs_instance_create(name.c_str());
  if (!inst)
    return Error("cannot create tracefs instance '" + name + "': " + std::strerror(errno));
  return TraceInstance(inst, std::move(name), std::move(*dir));
}

TraceInstance::TraceInstance(tracefs_instance *inst, std::string name, std::string tracing_dir)
    : inst_(inst), name_(std::move(name)), tracing_dir_(std::move(tracing_dir)) {
  registry_replace(nullptr, this);
}

TraceInstance::TraceInstance(TraceInstance &&o) noexcept
    : inst_(o.inst_), name_(std::move(o.name_)), tracing_dir_(std::move(o.tracing_dir_)),
      enabled_(std::move(o.enabled_)), triggers_(std::move(o.triggers_)) {
  o.inst_ = nullptr;
  registry_replace(&o, inst_ ? this : nullptr);
}

TraceInstance &TraceInstance::operator=(TraceInstance &&o) noexcept {
  if (this == &o) return *this;
  (void)close();
  inst_ = o.inst_;
  name_ = std::move(o.name_);
  tracing_dir_ = std::move(o.tracing_dir_);
  enabled_ = std::move(o.enabled_);
  triggers_ = std::move(o.triggers_);
  o.inst_ = nullptr;
  registry_replace(&o, nullptr);
  if (inst_) registry_replace(nullptr, this);
  return *this;
}

TraceInstance::~TraceInstance() { (void)close(); }

Result<std::vector<EventId>> TraceInstance::enable(const std::string &pattern) {
  auto matches = match(pattern);
  if (!matches) return matches;
  for (const auto &m : *matches) {
    if (tracefs_event_enable(inst_, exact_regex(m.system).c_str(), exact_regex(m.name).c_str()) != 0)
      return Error("cannot enable " + m.system + ":" + m.name + " in instance " + name_ + ": " +
                   std::strerror(errno));
    if (std::find(enabled_.begin(), enabled_.end(), m) == enabled_.end()) enabled_.push_back(m);
  }
  return matches;
}

Result<std::vector<EventId>> TraceInstance::match(const std::string &pattern) const {
  if (!inst_) return Error("trace instance is closed");
  std::string sys_pat = pattern, ev_pat = "*";
  bool bare = true;
  if (auto colon = pattern.find(':'); colon != std::string::npos) {
    sys_pat = pattern.substr(0, colon);
    ev_pat = pattern.substr(colon + 1);
    bare = false;
  }
  const char *dir = tracing_dir_.c_str();
  std::vector<EventId> matches;
  auto systems = take_list(tracefs_event_systems(dir));
  for (const auto &sys : systems) {
    if (!glob_match(sys_pat, sys)) continue;
    for (const auto &ev : take_list(tracefs_system_events(dir, sys.c_str())))
      if (glob_match(ev_pat, ev)) matches.push_back({sys, ev});
  }
  if (matches.empty() && bare) {  // "walk_L5": an event name in any system
    for (const auto &sys : systems)
      for (const auto &ev : take_list(tracefs_system_events(dir, sys.c_str())))
        if (glob_match(pattern, ev)) matches.push_back({sys, ev});
  }
  if (matches.empty())
    return Error("no event matches '" + pattern + "'",
                 "list events with: kprobe-probe --list, or ls " + tracing_dir_ + "/events");
  return matches;
}

bool TraceInstance::has_event_file(const EventId &event, const std::string &file) const {
  if (!inst_) return false;
  return tracefs_event_file_exists(inst_, event.system.c_str(), event.name.c_str(), file.c_str());
}

Status TraceInstance::add_trigger(const EventId &event, const std::string &trigger) {
  if (!inst_) return Error("trace instance is closed");
  if (trigger.find_first_of("\n\r") != std::string::npos) return Error("a trigger must be one line");
  // Triggers are appended: the file's other triggers (there are none in our
  // own instance, but a kernel may add its own) stay.
  if (tracefs_event_file_append(inst_, event.system.c_str(), event.name.c_str(), "trigger", trigger.c_str()) < 0)
    return Error("the kernel refused the trigger on " + event.system + ":" + event.name + ": " + trigger,
                 "see " + tracing_dir_ + "/error_log");
  triggers_.push_back({event, trigger});
  return Ok{};
}

Status TraceInstance::write_event_file(const EventId &event, const std::string &file, const std::string &text) {
  if (!inst_) return Error("trace instance is closed");
  if (text.find_first_of("\n\r") != std::string::npos) return Error("a command must be one line");
  if (tracefs_event_file_append(inst_, event.system.c_str(), event.name.c_str(), file.c_str(), text.c_str()) < 0)
    return Error("the kernel refused '" + text + "' in " + file + " of " + event.system + ":" + event.name + ": " +
                     std::strerror(errno),
                 "see " + tracing_dir_ + "/error_log");
  return Ok{};
}

Result<std::string> TraceInstance::read_event_file(const EventId &event, const std::string &file) const {
  if (!inst_) return Error("trace instance is closed");
  int size = 0;
  char *text = tracefs_event_file_read(inst_, event.system.c_str(), event.name.c_str(), file.c_str(), &size);
  if (!text) return Error("cannot read " + file + " of " + event.system + ":" + event.name + " in instance " + name_);
  std::string out(text, static_cast<size_t>(std::max(size, 0)));
  std::free(text);
  return out;
}

Status TraceInstance::remove_triggers() {
  if (!inst_) return Ok{};
  std::string failed;
  // Newest first: a trigger that feeds another (onmatch into a synthetic
  // event's histogram) goes after the one it feeds.
  for (auto it = triggers_.rbegin(); it != triggers_.rend(); ++it) {
    std::string remove = "!" + it->second;
    if (tracefs_event_file_append(inst_, it->first.system.c_str(), it->first.name.c_str(), "trigger",
                                  remove.c_str()) < 0)
      failed += " " + it->first.system + ":" + it->first.name;
  }
  triggers_.clear();
  if (!failed.empty()) return Error("cannot remove the trigger of" + failed + " in instance " + name_);
  return Ok{};
}

Status TraceInstance::set_filter(const std::string &expr) {
  if (!inst_) return Error("trace instance is closed");
  for (const auto &e : enabled_) {
    if (tracefs_event_file_write(inst_, e.system.c_str(), e.name.c_str(), "filter", expr.c_str()) >= 0)
      continue;
    int err = errno;
    // The kernel explains a bad filter in the filter file itself.
    std::string why = std::strerror(err);
    if (char *text = tracefs_event_file_read(inst_, e.system.c_str(), e.name.c_str(), "filter", nullptr)) {
      std::string t = text;
      free(text);
      while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
      if (!t.empty() && t != "none") why = t;
    }
    return Error("invalid filter '" + expr + "' for " + e.system + ":" + e.name + ": " + why,
                 "filters use the event's field names, e.g. 'i > 3 && common_pid == 42'");
  }
  return Ok{};
}

Status TraceInstance::set_event_pid(pid_t pid) { return set_event_pids({pid}, true, false); }

Status TraceInstance::set_event_pids(const std::vector<pid_t> &pids, bool follow_forks, bool append) {
  if (!inst_) return Error("trace instance is closed");
  if (follow_forks && tracefs_option_enable(inst_, TRACEFS_OPTION_EVENT_FORK) != 0)
    return Error("cannot enable the event-fork option in instance " + name_);
  if (pids.empty() && append) return Ok{};
  std::string text;
  for (pid_t pid : pids) text += (text.empty() ? "" : " ") + std::to_string(pid);
  int written = append ? tracefs_instance_file_append(inst_, "set_event_pid", (" " + text).c_str())
                       : tracefs_instance_file_write(inst_, "set_event_pid", text.c_str());
  if (written < 0) return Error("cannot write set_event_pid in instance " + name_ + ": " + std::strerror(errno));
  return Ok{};
}

Status TraceInstance::add_event_notrace_pids(const std::vector<pid_t> &pids) {
  if (!inst_) return Error("trace instance is closed");
  if (!tracefs_file_exists(inst_, "set_event_notrace_pid")) return Ok{};  // before 5.8: set_event_pid alone
  std::string text;
  for (pid_t pid : pids) text += " " + std::to_string(pid);
  if (!text.empty() && tracefs_instance_file_append(inst_, "set_event_notrace_pid", text.c_str()) < 0)
    return Error("cannot write set_event_notrace_pid in instance " + name_ + ": " + std::strerror(errno));
  return Ok{};
}

Status TraceInstance::set_buffer_size_kb(size_t kb) {
  if (!inst_) return Error("trace instance is closed");
  if (tracefs_instance_set_buffer_size(inst_, kb, -1) != 0)
    return Error("cannot set buffer size to " + std::to_string(kb) + " KiB: " + std::strerror(errno));
  return Ok{};
}

Status TraceInstance::set_clock(const std::string &clock) {
  if (!inst_) return Error("trace instance is closed");
  if (tracefs_instance_file_write(inst_, "trace_clock", clock.c_str()) < 0)
    return Error("cannot select trace clock '" + clock + "': " + std::strerror(errno));
  return Ok{};
}

std::string TraceInstance::clock() const {
  if (!inst_) return {};
  char *c = tracefs_get_clock(inst_);
  std::string out = c ? c : "";
  free(c);
  return out;
}

std::vector<std::string> TraceInstance::enabled_systems() const {
  std::vector<std::string> out;
  for (const auto &e : enabled_)
    if (std::find(out.begin(), out.end(), e.system) == out.end()) out.push_back(e.system);
  return out;
}

Status TraceInstance::disable_all() {
  if (!inst_) return Ok{};
  std::string failed;
  for (const auto &e : enabled_)
    if (tracefs_event_disable(inst_, exact_regex(e.system).c_str(), exact_regex(e.name).c_str()) != 0)
      failed += " " + e.system + ":" + e.name;
  if (!failed.empty()) return Error("cannot disable" + failed + " in instance " + name_);
  return Ok{};
}

Status TraceInstance::close() {
  if (!inst_) return Ok{};
  // A trigger keeps its event soft-enabled; the instance cannot go while it is there.
  Status untriggered = remove_triggers();
  Status disabled = disable_all();
  // Stop the buffer too, so nothing more is written while the rmdir happens.
  tracefs_trace_off(inst_);
  int rc = tracefs_instance_destroy(inst_);
  int err = errno;
  tracefs_instance_free(inst_);
  inst_ = nullptr;
  registry_replace(this, nullptr);
  if (rc != 0)
    return Error("cannot remove tracefs instance '" + name_ + "': " + std::strerror(err),
                 "close every reader of its per-CPU files first, then: rmdir " + tracing_dir_ +
                     "/instances/" + name_);
  if (!untriggered) return untriggered;
  if (!disabled) return disabled;
  return Ok{};
}

void remove_all_trace_instances() {
  std::vector<TraceInstance *> live;
  {
    std::lock_guard lock(registry_mutex());
    live = registry();
  }
  for (TraceInstance *t : live) (void)t->close();
}

void install_trace_instance_cleanup_at_exit() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit(remove_all_trace_instances); });
}

}  // namespace kpp
