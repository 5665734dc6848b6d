#include "src/tracefs/tracefs_mount.h"

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/tracefs/tracefs.h"
#include "src/tracefs/tracefs_cxx.h"

namespace kpp {

Result<std::string> ensure_tracefs() {
  if (!Tracefs::injected_root().empty()) return Tracefs::injected_root();
  const char *path = nullptr;
  // Ask without letting libtracefs mount: we want to say what we did.
  if (tracefs_tracing_dir_is_mounted(false, &path) == 1 && path)
    return std::string(path);
  if (geteuid() != 0)
    return Error("tracefs is not mounted and mounting it needs root",
                 std::string("run as root, or: mount -t tracefs nodev ") + kDefaultTracefs);
  if (mount("nodev", kDefaultTracefs, "tracefs", 0, nullptr) != 0 && errno != EBUSY)
    return Error(std::string("cannot mount tracefs at ") + kDefaultTracefs + ": " +
                     std::strerror(errno),
                 "check that the kernel has CONFIG_FTRACE and tracefs");
  path = nullptr;
  if (tracefs_tracing_dir_is_mounted(false, &path) == 1 && path)
    return std::string(path);
  // libtracefs may have cached "not found"; it also knows the default path.
  const char *dir = tracefs_tracing_dir();
  if (!dir)
    return Error(std::string("tracefs was mounted at ") + kDefaultTracefs +
                 " but libtracefs does not find it");
  return std::string(dir);
}

}  // namespace kpp
