#include "src/stream/target_set.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "src/stream/trace_instance.h"
#include "util/strings.h"

namespace kpp {

namespace {

// A thread's id in its own pid namespace (NSpid's last), 0 when unknown.
pid_t ns_tid(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, 6, "NSpid:") == 0) {
      size_t tab = line.find_last_of(" \t");
      return tab == std::string::npos ? 0 : std::atoi(line.c_str() + tab + 1);
    }
  return 0;
}

}  // namespace

Result<TargetSet> TargetSet::open(const std::vector<pid_t> &pids) {
  TargetSet set;
  for (pid_t pid : pids) {
    auto process = TargetProcess::open(pid);
    if (!process) return std::move(process).error();
    set.processes_.push_back(std::move(*process));
  }
  return set;
}

std::vector<pid_t> TargetSet::new_threads() {
  std::vector<pid_t> added;
  for (const TargetProcess &p : processes_) {
    if (!p.alive()) continue;
    for (pid_t tid : p.threads()) {
      if (!written_.insert(tid).second) continue;
      added.push_back(tid);
      threads_of_[p.pid()].push_back(tid);
      if (p.ns_pid())
        if (pid_t inner = ns_tid(p.pid(), tid)) (*ns_pids_)[tid] = inner;
    }
  }
  return added;
}

Status TargetSet::filter(TraceInstance &instance, bool follow_forks) {
  follow_forks_ = follow_forks;
  std::vector<pid_t> threads = new_threads();
  if (threads.empty()) return Error("the processes -p names have all exited: " + describe());
  return instance.set_event_pids(threads, follow_forks, false);
}

Status TargetSet::refresh(TraceInstance &instance) {
  if (follow_forks_) {
    // The kernel follows the threads; only a container's need their ids there (ns_pids).
    bool contained = std::any_of(processes_.begin(), processes_.end(), [](const TargetProcess &p) { return p.ns_pid(); });
    if (contained) (void)new_threads();
    return Ok{};
  }
  std::vector<pid_t> threads = new_threads();
  if (threads.empty()) return Ok{};
  return instance.set_event_pids(threads, false, true);
}

Status TargetSet::follow_forks(TraceInstance &instance) {
  follow_forks_ = true;
  return instance.set_event_pids(new_threads(), true, true);
}

Status TargetSet::retire_exited(TraceInstance &instance, uint64_t now_ns) {
  std::vector<pid_t> ids;
  for (const TargetProcess &p : processes_) {
    if (p.alive() || !gone_.insert(p.pid()).second) continue;
    std::vector<pid_t> tids = threads_of_[p.pid()];
    tids.push_back(p.pid());
    for (pid_t tid : tids)
      if (now_ns) retired_->emplace(tid, now_ns);
    ids.insert(ids.end(), tids.begin(), tids.end());
  }
  return instance.add_event_notrace_pids(ids);
}

bool TargetSet::all_exited() const {
  for (const TargetProcess &p : processes_)
    if (p.alive()) return false;
  return !processes_.empty();
}

std::vector<int> TargetSet::wake_fds() const {
  std::vector<int> fds;
  for (const TargetProcess &p : processes_)
    if (p.alive()) fds.push_back(p.pidfd());
  return fds;
}

std::string TargetSet::describe() const {
  std::vector<std::string> each;
  for (const TargetProcess &p : processes_) each.push_back(p.describe());
  return join(each);
}

}  // namespace kpp
