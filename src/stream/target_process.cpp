#include "src/stream/target_process.h"

#include <dirent.h>
#include <fnmatch.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <sstream>

#include "src/stream/process_maps.h"
#include "util/files.h"
#include "util/same_file.h"
#include "util/strings.h"

namespace kpp {

namespace {

constexpr unsigned long kKernelThreadFlag = 0x00200000;  // PF_KTHREAD in /proc/PID/stat's flags

std::string proc_file(pid_t pid, const char *name) { return "/proc/" + std::to_string(pid) + "/" + name; }

// A /proc link's target; errno set when it cannot be read.
std::optional<std::string> read_link(const std::string &path) {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer - 1);
  if (n < 0) return std::nullopt;
  return std::string(buffer, static_cast<size_t>(n));
}

// The value of "Key:\t..." in /proc/PID/status, "" when absent.
std::string status_field(const std::string &status, const std::string &key) {
  std::istringstream in(status);
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, key.size() + 1, key + ":") == 0) {
      size_t at = line.find_first_not_of(" \t", key.size() + 1);
      return at == std::string::npos ? "" : line.substr(at);
    }
  return "";
}

// State and flags from /proc/PID/stat: "pid (comm) S ppid pgrp session tty tpgid flags ...";
// comm may hold spaces and parentheses, so the fields start after the last ')'.
bool read_state(pid_t pid, char &state, unsigned long &flags) {
  Result<std::string> stat = read_whole_file(proc_file(pid, "stat"));
  if (!stat) return false;
  size_t close = stat->rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(stat->substr(close + 1));
  std::string skip;
  fields >> state;
  for (int i = 0; i < 5; ++i) fields >> skip;  // ppid pgrp session tty_nr tpgid
  return static_cast<bool>(fields >> flags);
}

std::string access_hint() {
  return "reading another user's process needs root or CAP_SYS_PTRACE (as gdb -p does; see also "
         "kernel.yama.ptrace_scope)";
}

Error pid_error(pid_t pid, const std::string &why, const std::string &hint = {}) {
  return Error("-p " + std::to_string(pid) + ": " + why, hint);
}

// Why `pid` has no pidfd: no such process, or a thread of another one.
Error pidfd_error(pid_t pid, int err) {
  if (err == ESRCH) return pid_error(pid, "no such process", "find it with pgrep NAME or ps");
  if (err == EINVAL || err == ENOENT) {  // a thread that leads no thread group (ENOENT since 6.9)
    std::string tgid = status_field(read_file_or_empty(proc_file(pid, "status")), "Tgid");
    if (!tgid.empty() && tgid != std::to_string(pid))
      return pid_error(pid, "a thread of process " + tgid + ", not a process", "give -p " + tgid);
  }
  return pid_error(pid, std::string("cannot hold the process (pidfd_open: ") + std::strerror(err) + ")");
}

}  // namespace

Result<TargetProcess> TargetProcess::open(pid_t pid) {
  TargetProcess p;
  p.pid_ = pid;
  p.pidfd_ = UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!p.pidfd_.valid()) return pidfd_error(pid, errno);
  char state = '?';
  unsigned long flags = 0;
  if (!read_state(pid, state, flags)) return pid_error(pid, "exited while being read");
  p.comm_ = read_file_or_empty(proc_file(pid, "comm"));
  if (!p.comm_.empty() && p.comm_.back() == '\n') p.comm_.pop_back();
  if (flags & kKernelThreadFlag)
    return pid_error(pid, "'" + p.comm_ + "' is a kernel thread: it runs no program to probe",
                     "kernel code is probed without -p (kprobes)");
  if (state == 'Z' || state == 'X')
    return pid_error(pid, "'" + p.comm_ + "' has exited (a zombie its parent has not reaped)");
  std::string nspid = status_field(read_file_or_empty(proc_file(pid, "status")), "NSpid");
  if (size_t tab = nspid.find_last_of(" \t"); tab != std::string::npos) p.ns_pid_ = std::atoi(nspid.c_str() + tab + 1);
  if (Status files = p.read_files(); !files) return std::move(files).error();
  if (!p.alive()) return pid_error(pid, "exited while being read");
  return p;
}

Status TargetProcess::read_files() {
  std::string root_link = proc_file(pid_, "root"), exe_link = proc_file(pid_, "exe");
  auto seen = read_link(root_link);
  if (!seen && (errno == EACCES || errno == EPERM))
    return pid_error(pid_, "cannot read its root: permission denied", access_hint());
  if (!seen) return pid_error(pid_, "exited while being read");
  root_seen_ = *seen;
  bool own_root = same_file(root_link, "/") && same_file(proc_file(pid_, "ns/mnt"), "/proc/self/ns/mnt");
  root_ = own_root ? "" : root_link;
  auto exe = read_link(exe_link);
  if (!exe && (errno == EACCES || errno == EPERM))
    return pid_error(pid_, "cannot read its executable: permission denied", access_hint());
  if (!exe) return pid_error(pid_, "'" + comm_ + "' has no executable to probe (" + std::strerror(errno) + ")");
  const std::string deleted = " (deleted)";
  bool replaced = exe->size() > deleted.size() && exe->compare(exe->size() - deleted.size(), deleted.size(), deleted) == 0;
  if (replaced) exe->resize(exe->size() - deleted.size());
  exe_in_process_ = process_path(*exe);
  exe_path_ = host_path(exe_in_process_);
  // A program replaced on disk since it started (an upgrade), or a path
  // that leads elsewhere from here: the running file itself, by its link.
  if (replaced || !same_file(exe_path_, exe_link)) exe_path_ = exe_link;
  return Ok{};
}

bool TargetProcess::alive() const {
  pollfd fd{pidfd_.get(), POLLIN, 0};
  return ::poll(&fd, 1, 0) == 0;
}

std::string TargetProcess::host_path(const std::string &path) const { return root_ + path; }

std::string TargetProcess::process_path(const std::string &maps_path) const {
  if (root_seen_ == "/" || maps_path.compare(0, root_seen_.size(), root_seen_) != 0) return maps_path;
  std::string rest = maps_path.substr(root_seen_.size());
  return rest.empty() || rest[0] != '/' ? maps_path : rest;
}

std::string TargetProcess::describe() const {
  std::string name = comm_.empty() ? "" : " (" + comm_ + ")";
  if (!ns_pid_) return "pid " + std::to_string(pid_) + name;
  return "pid " + std::to_string(*ns_pid_) + " in the container, " + std::to_string(pid_) + " on the host" + name;
}

std::vector<pid_t> TargetProcess::threads() const {
  std::vector<pid_t> out;
  DIR *dir = ::opendir(proc_file(pid_, "task").c_str());
  if (!dir) return out;
  while (dirent *entry = ::readdir(dir))
    if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') out.push_back(std::atoi(entry->d_name));
  ::closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> mapped_file(const TargetProcess &process, const std::string &name) {
  std::string who = process.describe();
  if (name.find('/') != std::string::npos) {
    std::string path = process.host_path(name);
    if (::access(path.c_str(), R_OK) != 0)
      return Error("-x " + name + ": no such file in the root of " + who + " (" + std::strerror(errno) + ")");
    return path;
  }
  std::vector<std::string> matched, mapped;
  for (const FileMapping &m : read_process_maps(process.pid())) {
    std::string path = process.process_path(m.path);
    std::vector<std::string> &into = ::fnmatch(name.c_str(), basename_of(path).c_str(), 0) == 0 ? matched : mapped;
    if (std::find(into.begin(), into.end(), path) == into.end()) into.push_back(path);
  }
  if (matched.size() == 1) return process.host_path(matched.front());
  if (matched.empty())
    return Error("-x " + name + ": " + who + " maps no such file" + (mapped.empty() ? "" : "; it maps: " + join(mapped)),
                 "name a library it maps (a glob on the file name: 'libssl*'), or a path with a '/'");
  return Error("-x " + name + ": several files of " + who + " match: " + join(matched), "name one of them");
}

}  // namespace kpp
