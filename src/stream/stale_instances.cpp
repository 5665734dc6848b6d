#include "src/stream/stale_instances.h"

#include <dirent.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "src/stream/tracefs_cxx.h"
#include "util/tool_pid.h"

namespace kpp {

namespace {

// The digits of `text` as a number (no sign, no leading zero, at most `max_digits`).
std::optional<uint64_t> plain_number(std::string_view text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits || text[0] == '0') return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

}  // namespace

std::optional<InstanceOwner> instance_owner(const std::string &name) {
  std::string_view prefix = kInstancePrefix, rest = name;
  if (!rest.starts_with(prefix)) return std::nullopt;
  rest.remove_prefix(prefix.size());
  InstanceOwner owner;
  if (size_t ns = rest.find("-ns"); ns != std::string_view::npos) {
    auto inode = plain_number(rest.substr(ns + 3), 20);
    if (!inode) return std::nullopt;
    owner.pid_namespace = *inode;
    rest = rest.substr(0, ns);
  }
  auto pid = plain_number(rest, 9);
  if (!pid) return std::nullopt;
  owner.pid = static_cast<int>(*pid);
  return owner;
}

int instance_owner_pid(const std::string &name) {
  auto owner = instance_owner(name);
  return owner ? owner->pid : 0;
}

uint64_t own_pid_namespace() {
  struct stat st {};
  return stat("/proc/self/ns/pid", &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

std::string instance_name_of(InstanceOwner owner) {
  std::string name = kInstancePrefix + std::to_string(owner.pid);
  if (owner.pid_namespace != kInitialPidNamespace) name += "-ns" + std::to_string(owner.pid_namespace);
  return name;
}

std::string this_runs_instance_name() {
  // An unknown namespace (no /proc) is named as the initial one: the name
  // perf-era scripts and our tests look for.
  uint64_t ns = own_pid_namespace();
  return instance_name_of({tool_pid(), ns == 0 ? kInitialPidNamespace : ns});
}

namespace {

// Disables and removes instance `name`: the errno text when it cannot.
std::optional<std::string> destroy_instance(const std::string &tracing_dir, const std::string &name) {
  tracefs_instance *inst = tracefs_instance_alloc(tracing_dir.c_str(), name.c_str());
  if (!inst) return std::string(std::strerror(errno));
  // Disable first: a probe stays enabled (and undeletable) until then.
  (void)tracefs_instance_file_write(inst, "events/enable", "0");
  int rc = tracefs_instance_destroy(inst);
  int err = errno;
  tracefs_instance_free(inst);
  if (rc == 0) return std::nullopt;
  return std::string(std::strerror(err));
}

}  // namespace

std::vector<std::string> remove_stale_instances(const std::string &tracing_dir) {
  std::vector<std::string> notes;
  std::string dir = tracing_dir + "/instances";
  DIR *d = opendir(dir.c_str());
  if (!d) return notes;
  std::vector<std::pair<std::string, int>> stale;
  uint64_t own_namespace = own_pid_namespace();
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    auto owner = instance_owner(name);
    // Another namespace's pid says nothing about the processes we can see.
    if (!owner || owner->pid_namespace != own_namespace || owner->pid == tool_pid()) continue;
    int pid = owner->pid;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to signal): keep
    stale.emplace_back(name, pid);
  }
  closedir(d);
  for (const auto &[name, pid] : stale) {
    if (auto why = destroy_instance(tracing_dir, name))
      notes.push_back("cannot remove tracefs instance " + name + " left by dead process " + std::to_string(pid) +
                      ": " + *why);
    else
      notes.push_back("removed tracefs instance " + name + ", left by kprobe-probe process " + std::to_string(pid) +
                      " that no longer runs");
  }
  return notes;
}

std::optional<std::string> remove_instance_of_this_run(const std::string &tracing_dir) {
  std::string name = this_runs_instance_name();
  struct stat st {};
  if (stat((tracing_dir + "/instances/" + name).c_str(), &st) != 0) return std::nullopt;
  if (auto why = destroy_instance(tracing_dir, name))
    return "cannot remove its tracefs instance " + name + ": " + *why;
  return "removed its tracefs instance " + name;
}

}  // namespace kpp
