#include "src/stream/task_filter.h"

namespace kpp {

namespace {

constexpr uint64_t kCloneThread = 0x00010000;  // CLONE_THREAD (linux/sched.h)

}  // namespace

bool TaskFilter::pass(const Event &event) {
  if (event.system == kSystem && event.name == kEvent) {
    const Field *pid = event.field("pid");
    const Field *flags = event.field("clone_flags");
    if (!pid || !flags) return false;
    bool thread = flags->value.u & kCloneThread;
    if (!thread || children_.count(event.pid)) children_.insert(static_cast<pid_t>(pid->value.i));
    return false;
  }
  return !children_.count(event.pid);
}

}  // namespace kpp
