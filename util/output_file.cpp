#include "util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace kpp {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Why an existing `path` of mode `mode` is not replaced; empty for a regular file.
std::string refusal(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISLNK(mode)) return "is a symbolic link";
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device";
  return "is not a regular file";
}

}  // namespace

Result<UniqueFd> create_output_file(const std::string &path, mode_t mode) {
  if (path.empty()) return Error("no output file name given");
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (std::string why = refusal(st.st_mode); !why.empty())
      return Error("'" + path + "' " + why + "; not written",
                   S_ISLNK(st.st_mode) ? "name the file it points to, or remove the link" : "name a regular file");
  } else if (errno != ENOENT) {
    return Error("cannot create '" + path + "': " + errno_text());
  }
  auto slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string temp = directory + "/." + base + ".tmp." + std::to_string(getpid()) + "." + std::to_string(random());
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd.valid()) {
      if (errno == EEXIST) continue;  // another name
      return Error("cannot create '" + path + "': " + errno_text());
    }
    // Whatever came to be at `path` meanwhile is replaced, not written
    // through; a directory there makes rename fail.
    if (::rename(temp.c_str(), path.c_str()) != 0) {
      std::string why = errno_text();
      ::unlink(temp.c_str());
      return Error("cannot create '" + path + "': " + why);
    }
    return fd;
  }
  return Error("cannot create '" + path + "': no unused temporary name in '" + directory + "'");
}

}  // namespace kpp
