#include "src/stream/task_filter.h"

namespace kpp {

namespace {

constexpr uint64_t kCloneThread = 0x00010000;  // CLONE_THREAD (linux/sched.h)
// User addresses have the top bit clear, kernel ones set (x86_64, arm64).
constexpr uint64_t kUserEnd = 1ull << 63;

// A probe in user code (a uprobe): its probe address is a user one.
bool in_user_code(const Event &event) { return event.probe_ip != 0 && event.probe_ip < kUserEnd; }

}  // namespace

void TaskFilter::on_new_task(const Event &event) {
  const Field *pid = event.field("pid");
  const Field *flags = event.field("clone_flags");
  if (!pid || !flags) return;
  auto task = static_cast<pid_t>(pid->value.i);
  bool thread = flags->value.u & kCloneThread;
  if (threads_only_ && (!thread || children_.count(event.pid))) {
    children_.insert(task);
    return;
  }
  children_.erase(task);
  exited_.erase(task);
}

bool TaskFilter::pass(const Event &event) {
  bool child = children_.count(event.pid) > 0;
  if (event.system == kSystem && event.name == kEvent) {
    on_new_task(event);
    return shown_.new_task && !child;
  }
  if (event.system == kExitSystem && event.name == kExitEvent) {
    exited_[event.pid] = event.time_ns;
    return shown_.exit && !child;
  }
  if (child) return false;
  auto gone = exited_.find(event.pid);
  return gone == exited_.end() || event.time_ns < gone->second || !in_user_code(event);
}

}  // namespace kpp
