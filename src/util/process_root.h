// Paths through a process's root, "/proc/PID/root/PATH": how -p reaches a
// container's files (the kernel resolves such a path in uprobe_events to
// the container's file), and how a listing tells which process a probe
// was made for.
#pragma once

#include <sys/types.h>

#include <string>

namespace kpp {

struct ProcessRootPath {
  std::string root;  // "/proc/PID/root"; empty when the path is not one
  std::string path;  // the rest, as the process sees it ("/app/server"); the whole path otherwise
  pid_t pid = 0;     // PID; 0 when the path is not one
};

ProcessRootPath split_process_root(const std::string &path);

}  // namespace kpp
