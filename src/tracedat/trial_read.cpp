#include "src/tracedat/trial_read.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <new>

#include "src/tracefs/tracefs_cxx.h"  // before trace-cmd.h: C++-safe tracefs.h
#include <trace-cmd/trace-cmd.h>

#include "util/strings.h"

namespace kpp::tracedat {

namespace {

// How far the child got, in memory it shares with the parent, so that it
// is known after the child died.
struct Progress {
  bool opened;
  int cpu;          // of the last event read
  uint64_t events;  // read so far, all buffers
};

int count_event(tracecmd_input *, tep_record *rec, int, void *data) {
  auto *progress = static_cast<Progress *>(data);
  progress->cpu = rec->cpu;
  ++progress->events;
  return 0;
}

[[noreturn]] void read_all(const std::string &path, Progress *progress) {
  // libtraceevent's warnings come once, from the real read.
  int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) dup2(null, STDERR_FILENO);
  tracecmd_input *handle = tracecmd_open(path.c_str(), 0);
  if (!handle) _exit(1);
  progress->opened = true;
  tracecmd_iterate_events(handle, nullptr, 0, count_event, progress);
  for (int i = 0, n = tracecmd_buffer_instances(handle); i < n; ++i)
    if (tracecmd_input *buffer = tracecmd_buffer_instance_handle(handle, i)) {
      tracecmd_iterate_events(buffer, nullptr, 0, count_event, progress);
      tracecmd_close(buffer);
    }
  tracecmd_close(handle);
  _exit(0);
}

Error died(const std::string &path, int sig, const Progress &progress) {
  std::string how = "libtracecmd died of " + signal_name(sig);
  if (!progress.opened)
    return Error(path + " is damaged: " + how +
                     " opening it (a size or an offset in its headers, formats or options, or a CPU's first "
                     "ring-buffer page, is wrong)",
                 "'trace-cmd dump --summary " + path + "' shows which part");
  return Error(path + " is damaged: " + how + " reading its events, after " + std::to_string(progress.events) +
                   " of them" + (progress.events ? " (the last on cpu" + std::to_string(progress.cpu) + ")" : "") +
                   ": a ring-buffer page's size or an event's length in it is wrong",
               "record it again; 'trace-cmd dump --flyrecord " + path + "' shows where each CPU's pages are");
}

}  // namespace

Status trial_read(const std::string &path) {
  void *shared = mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return Ok{};  // no room to share: the supervisor still answers for a crash
  auto *progress = new (shared) Progress{false, -1, 0};
  std::fflush(nullptr);
  pid_t child = fork();
  if (child == 0) read_all(path, progress);
  Status result = Ok{};
  int status = 0;
  if (child > 0) {
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    // Opened and read, or refused: the real read says which.
    if (WIFSIGNALED(status)) result = died(path, WTERMSIG(status), *progress);
  }
  munmap(shared, sizeof(Progress));
  return result;
}

}  // namespace kpp::tracedat
