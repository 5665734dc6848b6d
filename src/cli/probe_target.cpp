#include "src/cli/probe_target.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace kpp {

namespace {

// Where Debian, Fedora and kernel builds put the DWARF vmlinux.
std::vector<std::string> vmlinux_candidates() {
  utsname u{};
  uname(&u);
  std::string release = u.release;
  return {"/usr/lib/debug/boot/vmlinux-" + release, "/usr/lib/debug/lib/modules/" + release + "/vmlinux",
          "/boot/vmlinux-" + release, "/lib/modules/" + release + "/build/vmlinux"};
}

}  // namespace

Result<ProbeTarget> open_probe_target(const CliOptions &options) {
  ProbeTarget target;
  std::string debug_path;
  if (!options.exec.empty()) {
    char resolved[PATH_MAX];
    if (!realpath(options.exec.c_str(), resolved))
      return Error("cannot find the program '" + options.exec + "'");
    target.path = resolved;
    debug_path = resolved;
  } else if (!options.vmlinux.empty()) {
    debug_path = options.vmlinux;
  } else {
    std::string tried;
    for (const std::string &candidate : vmlinux_candidates()) {
      if (access(candidate.c_str(), R_OK) == 0) {
        debug_path = candidate;
        break;
      }
      tried += "\n    " + candidate;
    }
    if (debug_path.empty())
      return Error("no DWARF vmlinux for the running kernel; tried:" + tried,
                   "give one with -k PATH (Debian: apt install linux-image-$(uname -r)-dbg), or probe a program with -x");
  }
  auto debug = dwarf::DebugInfo::open(debug_path);
  if (!debug) return std::move(debug).error();
  target.debug = std::move(*debug);
  return target;
}

}  // namespace kpp
