#include "src/plan/install.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "src/kernel/notrace_refusal.h"
#include "src/util/crash_note.h"
#include "src/util/deferred_signals.h"
#include "src/util/strings.h"
#include "src/util/unique_fd.h"

namespace kpp {

InstalledProbes::~InstalledProbes() {
  for (const std::string &name : names_) (void)engine_.remove(name);
  if (!names_.empty()) note_probes_clear();
}

void InstalledProbes::keep() {
  names_.clear();
  note_probes_clear();  // the user's now: a supervisor must not remove them
}

void InstalledProbes::hold(const std::string &qualified_name) {
  if (std::find(names_.begin(), names_.end(), qualified_name) == names_.end()) names_.push_back(qualified_name);
}

namespace {

// An exclusive flock on the tracefs directory: every kprobe-probe that adds
// probes takes it, so that the check "is this name free" and the writes are
// one step. Nothing is created for it (a lock file root writes would be
// one more file to trust).
Result<UniqueFd> lock_tracefs(const std::string &dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return Error("cannot open " + dir + ": " + std::strerror(errno));
  while (flock(fd.get(), LOCK_EX) != 0)
    if (errno != EINTR) return Error("cannot lock " + dir + ": " + std::strerror(errno));
  return fd;
}

// Names of the plan's events that exist now.
std::vector<std::string> clashes(const Plan &plan, const std::vector<TraceDefinition> &now) {
  std::vector<std::string> out;
  for (const PlanEvent &e : plan.events())
    for (const TraceDefinition &d : now)
      if (d.group == e.group && d.event == e.event) {
        out.push_back(e.qualified_name());
        break;
      }
  return out;
}

// Events of the plan the kernel lists with more probe points than the plan
// wrote: another writer joined them.
std::vector<std::string> joined_by_others(const Plan &plan, const std::vector<TraceDefinition> &now) {
  std::map<std::string, size_t> planned, listed;
  for (const TraceDefinition &d : plan.definitions()) ++planned[d.qualified_name()];
  for (const TraceDefinition &d : now)
    if (planned.count(d.qualified_name())) ++listed[d.qualified_name()];
  std::vector<std::string> out;
  for (const auto &[name, n] : planned)
    if (listed[name] != n) out.push_back(name);
  return out;
}

void remove_all(ProbeEngine &engine, const Plan &plan) {
  for (const PlanEvent &e : plan.events()) (void)engine.remove(e.qualified_name());
}

Status write_locked(const Plan &plan, ProbeEngine &engine) {
  auto now = engine.list();
  if (!now) return std::move(now).error();
  if (auto taken = clashes(plan, *now); !taken.empty())
    return Error("event \"" + taken.front() + "\" already exists: another command added it after this one chose its "
                 "names; nothing was written",
                 "run again for a free name, or remove it with 'kprobe-probe -d " + taken.front() + "'");
  Status added = engine.add(plan.definitions());
  if (!added && plan.kernel()) {
    std::vector<TraceDefinition> defs = plan.definitions();  // KernelSite points at its own copy
    std::vector<KernelSite> sites;
    for (size_t i = 0; i < defs.size(); ++i) sites.push_back({&defs[i], plan.placements()[i]});
    return explain_failed_registration(std::move(added).error(), sites);
  }
  if (!added) return added;
  auto after = engine.list();
  if (!after) return std::move(after).error();
  if (auto joined = joined_by_others(plan, *after); !joined.empty()) {
    remove_all(engine, plan);
    return Error("event \"" + joined.front() + "\" was joined by probes another program wrote at the same time; "
                 "it was removed again",
                 "add it again once the other program is done");
  }
  return Ok{};
}

}  // namespace

Status install(const Plan &plan, ProbeEngine &engine, InstalledProbes &installed) {
  auto lock = lock_tracefs(engine.tracing_dir());
  if (!lock) return std::move(lock).error();
  Status written = Ok{};
  {
    DeferredSignals deferred;
    note_tracefs_changed();  // for the message if the run crashes from here (src/cli/supervisor.h)
    // Named before they are written: if this process dies meanwhile (SIGKILL,
    // the OOM killer), its supervisor removes what of them exists.
    size_t mark = noted_probes_mark();
    std::vector<std::string> names;
    for (const PlanEvent &e : plan.events()) names.push_back(e.qualified_name());
    note_probes_written(names);
    written = write_locked(plan, engine);
    if (!written) note_probes_truncate(mark);
    if (int sig = deferred.pending()) {
      if (written) remove_all(engine, plan);
      note_probes_truncate(mark);
      std::fprintf(stderr, "kprobe-probe: interrupted by %s: nothing was added\n", signal_name(sig).c_str());
      written = Error(std::string("interrupted by ") + signal_name(sig), "nothing was added");
    } else if (written) {
      for (const PlanEvent &e : plan.events()) installed.hold(e.qualified_name());
    }
  }  // a held-back signal is delivered here
  return written;
}

}  // namespace kpp
