#include "src/stream/stale_instances.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/stream/tracefs_cxx.h"

namespace kpp {

int instance_owner_pid(const std::string &name) {
  std::string prefix = kInstancePrefix;
  if (name.size() <= prefix.size() || name.size() > prefix.size() + 9 || name.compare(0, prefix.size(), prefix) != 0)
    return 0;
  int pid = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return 0;
    pid = pid * 10 + (name[i] - '0');
  }
  return name[prefix.size()] == '0' ? 0 : pid;
}

std::vector<std::string> remove_stale_instances(const std::string &tracing_dir) {
  std::vector<std::string> notes;
  std::string dir = tracing_dir + "/instances";
  DIR *d = opendir(dir.c_str());
  if (!d) return notes;
  std::vector<std::pair<std::string, int>> stale;
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    int pid = instance_owner_pid(name);
    if (pid <= 0 || pid == getpid()) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to signal): keep
    stale.emplace_back(name, pid);
  }
  closedir(d);
  for (const auto &[name, pid] : stale) {
    tracefs_instance *inst = tracefs_instance_alloc(tracing_dir.c_str(), name.c_str());
    if (!inst) continue;
    // Disable first: a probe stays enabled (and undeletable) until then.
    (void)tracefs_instance_file_write(inst, "events/enable", "0");
    int rc = tracefs_instance_destroy(inst);
    int err = errno;
    tracefs_instance_free(inst);
    if (rc == 0)
      notes.push_back("removed tracefs instance " + name + ", left by kprobe-probe process " + std::to_string(pid) +
                      " that no longer runs");
    else
      notes.push_back("cannot remove tracefs instance " + name + " left by dead process " + std::to_string(pid) +
                      ": " + std::strerror(err));
  }
  return notes;
}

}  // namespace kpp
