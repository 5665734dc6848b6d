#include "src/cli/supervisor.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "src/cli/supervisor_probes.h"
#include "src/spec/error_format.h"
#include "src/stream/stale_instances.h"
#include "util/crash_note.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/tool_pid.h"

namespace kpp {

namespace {

// What a user or a terminal sends to stop the tool: passed on to the child.
constexpr int kPassedOn[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};

volatile sig_atomic_t g_worker = 0;

// The terminal's modes when the run started: a worker that dies in the live
// view leaves it without echo and line editing, and they are put back.
struct termios g_terminal {};
bool g_on_terminal = false;

void pass_on(int sig) {
  if (g_worker > 0) ::kill(g_worker, sig);
}

// The processes this one adopted (the dead child's orphans: the command it
// traced, and theirs as they are orphaned in turn), with their names.
std::vector<std::pair<pid_t, std::string>> adopted() {
  std::vector<std::pair<pid_t, std::string>> out;
  DIR *d = opendir("/proc");
  if (!d) return out;
  pid_t self = getpid();
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::string text = read_file_or_empty(std::string("/proc/") + e->d_name + "/stat");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    size_t open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == self && state != 'Z')
      out.emplace_back(static_cast<pid_t>(std::atoi(e->d_name)), text.substr(open + 1, close - open - 1));
  }
  closedir(d);
  return out;
}

// Ends what the dead child traced, as its session would have: SIGTERM, then
// SIGKILL after 1 s. A note naming what was ended, if anything was.
std::optional<std::string> end_adopted() {
  constexpr size_t kNamed = 5;
  std::set<pid_t> ended;
  std::string names;  // the first few: a build under trace may have hundreds
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    auto left = adopted();
    if (left.empty()) break;
    bool late = std::chrono::steady_clock::now() >= deadline;
    for (const auto &[pid, name] : left) {
      if (late) ::kill(pid, SIGKILL);
      if (!ended.insert(pid).second) continue;
      if (!late) ::kill(pid, SIGTERM);
      if (ended.size() <= kNamed) names += (names.empty() ? "" : ", ") + name + " " + std::to_string(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (ended.empty()) return std::nullopt;
  if (ended.size() > kNamed) names += " and " + std::to_string(ended.size() - kNamed) + " more";
  return "ended what it had started (" + names + ")";
}

// What the dead child had put in the kernel, removed in the order the kernel
// needs: its instance's triggers, its synthetic event and its instance (a
// probe stays while a trigger or an instance uses it), then the probes it
// was writing or held to remove at its end (util/crash_note.h).
std::vector<std::string> remove_kernel_state() {
  std::optional<Tracefs> tracefs = Tracefs::mounted();
  if (!tracefs) return {};
  std::vector<std::string> notes = remove_instance_of_this_run(*tracefs);
  size_t not_noted = 0;
  std::vector<std::string> probes = noted_probes(&not_noted);
  if (probes.empty() && not_noted == 0) return notes;
  if (std::optional<std::string> note = remove_probes(probes, not_noted)) notes.push_back(*note);
  return notes;
}

// " (the file it opened last: 'b'; before it: 'a')".
std::string files_opened() {
  std::vector<std::string> files = noted_files();
  if (files.empty()) return "";
  std::string text = " (the file it opened last: '" + files.back() + "'";
  if (files.size() > 1) {
    text += "; before it:";
    for (size_t i = files.size() - 1; i-- > 0;) text += " '" + files[i] + "'" + (i ? "," : "");
  }
  return text + ")";
}

void report_death(int sig, const std::vector<std::string> &notes) {
  bool killed = sig == SIGKILL;
  std::string what = killed ? "the run was killed by SIGKILL, by the kernel's out-of-memory killer or by a user" +
                                  files_opened()
                            : "the run crashed with " + signal_name(sig) + files_opened();
  // Probes are written after the DWARF is read: a run that reads another
  // kind of file (report's trace.dat) says nothing of them.
  std::string reader = noted_reader();
  if (noted_tracefs_changed()) what += "; it had begun to write probe definitions";
  else if (reader.empty()) what += "; it had written no probe definition";
  for (const std::string &note : notes) what += "; " + note;
  std::string hint = killed ? "" : "a damaged file the checks before " + (reader.empty() ? "the DWARF reader" : reader) +
                                       " do not catch, or a bug: please report it, with the file if you can";
  std::fputs(format_error(Error(what, hint)).c_str(), stderr);
}

bool is_crash(int sig) {
  switch (sig) {
    case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGABRT: case SIGSYS: case SIGTRAP:
    case SIGXCPU: case SIGXFSZ: case SIGKILL:
      return true;
    default:
      return false;
  }
}

// Dies of `sig` as the child did, so that the shell sees it (without a
// core file of this process, which did nothing).
[[noreturn]] void die_of(int sig) {
  struct rlimit no_core {};
  setrlimit(RLIMIT_CORE, &no_core);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  _exit(128 + sig);
}

[[noreturn]] void stand_by(pid_t worker) {
  int status = 0;
  for (;;) {
    pid_t ended = waitpid(-1, &status, 0);  // reaps adopted orphans too
    if (ended == worker) break;
    if (ended < 0 && errno != EINTR) _exit(1);  // cannot happen: the worker is ours
  }
  g_worker = 0;  // reaped: its pid may be another process's from now on
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WTERMSIG(status);
  // Only in the foreground: a background process that sets them is stopped (SIGTTOU).
  if (g_on_terminal && tcgetpgrp(STDIN_FILENO) == getpgrp()) {
    tcsetattr(STDIN_FILENO, TCSANOW, &g_terminal);
    // The live view's alternate screen left, its cursor shown again.
    std::string restore = noted_terminal_restore();
    if (!restore.empty()) (void)!::write(STDOUT_FILENO, restore.data(), restore.size());
  }
  std::vector<std::string> notes;
  if (auto ended = end_adopted()) notes.push_back(*ended);
  for (std::string &note : remove_kernel_state()) notes.push_back(std::move(note));
  if (!is_crash(sig)) {
    for (const std::string &note : notes) std::fprintf(stderr, "kprobe-probe: %s\n", note.c_str());
    die_of(sig);
  }
  report_death(sig, notes);
  if (sig == SIGKILL) die_of(sig);
  _exit(1);
}

}  // namespace

void run_supervised() {
  // Held back until each side has its handlers: a signal sent meanwhile
  // reaches the child through the parent, or the child itself.
  sigset_t block, saved_mask;
  sigemptyset(&block);
  for (int sig : kPassedOn) sigaddset(&block, sig);
  sigprocmask(SIG_BLOCK, &block, &saved_mask);
  struct sigaction saved[std::size(kPassedOn)];
  for (size_t i = 0; i < std::size(kPassedOn); ++i) sigaction(kPassedOn[i], nullptr, &saved[i]);
  share_crash_note();
  g_on_terminal = tcgetattr(STDIN_FILENO, &g_terminal) == 0;
  pid_t parent = getpid();
  pid_t worker = fork();
  if (worker < 0) {
    sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
    return;
  }
  if (worker == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) ::raise(SIGKILL);  // it died before the line above
    set_tool_pid(parent);
    sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
    return;
  }
  g_worker = worker;
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  for (size_t i = 0; i < std::size(kPassedOn); ++i) {
    if (saved[i].sa_handler == SIG_IGN) continue;  // nohup's SIGHUP stays ignored, in both
    struct sigaction on {};
    on.sa_handler = pass_on;
    on.sa_flags = SA_RESTART;
    sigemptyset(&on.sa_mask);
    sigaction(kPassedOn[i], &on, nullptr);
  }
  sigprocmask(SIG_SETMASK, &saved_mask, nullptr);
  stand_by(worker);
}

}  // namespace kpp
