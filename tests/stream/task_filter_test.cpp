// The task filter of -p sessions (src/stream/task_filter.h) on hand-built
// events: which tasks' events reach the sinks. The kernel's side (what it
// writes, when) is tested end to end in tests/e2e/target_pid_test.cpp.
#include "src/stream/task_filter.h"

#include <gtest/gtest.h>

#include "tests/common/test_events.h"

namespace kpp {
namespace {

constexpr uint64_t kCloneThread = 0x00010000;
constexpr uint64_t kUserIp = 0x55801d234310, kKernelIp = 0xffffffff81234560;

Event at(pid_t pid, uint64_t time, uint64_t ip = kUserIp) {
  Event e = test_events::test_event("probe_app", "work", pid, time);
  e.probe_ip = ip;
  return e;
}

Event new_task(pid_t parent, pid_t task, uint64_t flags, uint64_t time) {
  Event e = at(parent, time, 0);
  e.system = TaskFilter::kSystem;
  e.name = TaskFilter::kEvent;
  e.fields = {test_events::signed_field("pid", task), test_events::unsigned_field("clone_flags", flags)};
  return e;
}

Event exit_of(pid_t pid, uint64_t time) {
  Event e = at(pid, time, 0);
  e.system = TaskFilter::kExitSystem;
  e.name = TaskFilter::kExitEvent;
  return e;
}

TEST(TaskFilter, ThreadsOnlyDropsChildProcessesAndWhatTheyFork) {
  TaskFilter f(true);
  EXPECT_FALSE(f.pass(new_task(100, 101, kCloneThread, 1)));  // never shown itself
  EXPECT_FALSE(f.pass(new_task(100, 200, 0, 2)));              // a child process
  EXPECT_FALSE(f.pass(new_task(200, 201, kCloneThread, 3)));  // its thread
  EXPECT_TRUE(f.pass(at(100, 4)));
  EXPECT_TRUE(f.pass(at(101, 5)));
  EXPECT_FALSE(f.pass(at(200, 6)));
  EXPECT_FALSE(f.pass(at(201, 7)));
}

TEST(TaskFilter, WithChildrenTheyPass) {
  TaskFilter f(false);
  EXPECT_FALSE(f.pass(new_task(100, 200, 0, 1)));
  EXPECT_TRUE(f.pass(at(200, 2)));
}

// After its exit, an id's user-code events are another process's (its pid
// reused once the task was reaped); its exit path's kernel events are its own.
TEST(TaskFilter, AnExitedIdsLaterUprobeEventsAreDropped) {
  TaskFilter f(false);
  EXPECT_TRUE(f.pass(at(100, 10)));
  EXPECT_FALSE(f.pass(exit_of(100, 20)));
  EXPECT_TRUE(f.pass(at(100, 25, kKernelIp)));  // a kprobe on its exit path
  EXPECT_TRUE(f.pass(at(100, 15)));              // stamped before the exit
  EXPECT_FALSE(f.pass(at(100, 30)));             // the pid's next owner
  EXPECT_TRUE(f.pass(at(101, 30)));
}

TEST(TaskFilter, AnIdGivenToAFollowedTaskAgainIsFollowed) {
  TaskFilter f(true);
  EXPECT_FALSE(f.pass(exit_of(101, 20)));
  EXPECT_FALSE(f.pass(at(101, 30)));
  EXPECT_FALSE(f.pass(new_task(100, 101, kCloneThread, 40)));  // a new thread of the target has it
  EXPECT_TRUE(f.pass(at(101, 50)));
  // An exited child process's id given to a thread: a thread's now.
  EXPECT_FALSE(f.pass(new_task(100, 200, 0, 60)));
  EXPECT_FALSE(f.pass(exit_of(200, 70)));
  EXPECT_FALSE(f.pass(new_task(100, 200, kCloneThread, 80)));
  EXPECT_TRUE(f.pass(at(200, 90)));
}

// The user's -e named them too: shown, a dropped child's excepted.
TEST(TaskFilter, TaskEventsTheUserAskedForAreShown) {
  TaskFilter hidden(true);
  EXPECT_FALSE(hidden.pass(exit_of(100, 1)));
  TaskFilter f(true, TaskEventsShown{true, true});
  EXPECT_TRUE(f.pass(new_task(100, 101, kCloneThread, 1)));
  EXPECT_TRUE(f.pass(new_task(100, 200, 0, 2)));   // made by the target: the target's event
  EXPECT_FALSE(f.pass(new_task(200, 201, 0, 3)));  // made by its child process
  EXPECT_FALSE(f.pass(exit_of(200, 4)));
  EXPECT_TRUE(f.pass(exit_of(101, 5)));
}

}  // namespace
}  // namespace kpp
