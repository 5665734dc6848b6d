#include "src/tracefs/tracefs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "src/tracefs/tracefs_cxx.h"
#include "src/tracefs/tracefs_mount.h"
#include "util/files.h"
#include "util/unique_fd.h"

namespace kpp {

namespace {

std::string &injected() {
  static std::string root;
  return root;
}

// Nothing written for "": opening with O_TRUNC is the command (a trigger
// file's "remove all").
int write_once(const std::string &path, const std::string &text, int flags) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW | flags));
  if (!fd.valid()) return errno;
  if (!text.empty() && ::write(fd.get(), text.data(), text.size()) < 0) return errno;
  return 0;
}

}  // namespace

Result<Tracefs> Tracefs::open() {
  auto root = ensure_tracefs();
  if (!root) return std::move(root).error();
  return Tracefs(std::move(*root));
}

Status Tracefs::use_root(const std::string &root) {
  // libtracefs keeps the pointer's copy; NULL goes back to its own search.
  std::string copy = root;
  if (tracefs_set_tracing_dir(root.empty() ? nullptr : copy.data()) != 0)
    return Error("cannot point libtracefs at " + root);
  injected() = root;
  return Ok{};
}

const std::string &Tracefs::injected_root() { return injected(); }

std::optional<Tracefs> Tracefs::mounted() {
  if (!injected().empty()) return Tracefs(injected());
  const char *dir = nullptr;
  if (tracefs_tracing_dir_is_mounted(false, &dir) != 1 || !dir) return std::nullopt;
  return Tracefs(dir);
}

std::vector<Tracefs> Tracefs::usual_places() {
  if (!injected().empty()) return {Tracefs(injected())};
  return {Tracefs(kDefaultTracefs), Tracefs("/sys/kernel/debug/tracing")};
}

std::string Tracefs::read(const std::string &relative) const {
  std::string text;
  if (!read_capped(relative, std::string().max_size() - 1, text)) return {};
  return text;
}

Result<std::string> Tracefs::read_whole(const std::string &relative) const { return read_whole_file(path(relative)); }

bool Tracefs::read_capped(const std::string &relative, size_t cap, std::string &text, bool *truncated) const {
  UniqueFd fd(::open(path(relative).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return false;
  text.clear();
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) return false;
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > cap) {
      text.resize(cap);
      if (truncated) *truncated = true;
      break;
    }
  }
  return true;
}

int Tracefs::append(const std::string &relative, const std::string &text) const {
  int err = write_once(path(relative), text, O_APPEND);
  errno = err;
  return err;
}

int Tracefs::write(const std::string &relative, const std::string &text) const {
  int err = write_once(path(relative), text, O_TRUNC);
  errno = err;
  return err;
}

bool Tracefs::exists(const std::string &relative) const {
  struct stat st;
  return stat(path(relative).c_str(), &st) == 0;
}

std::vector<std::string> Tracefs::entries(const std::string &relative, size_t max) const {
  std::vector<std::string> names;
  if (DIR *d = opendir(path(relative).c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.' && names.size() < max) names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

std::vector<std::string> Tracefs::subdirectories(const std::string &relative) const {
  std::vector<std::string> out;
  DIR *d = opendir(path(relative).c_str());
  if (!d) return out;
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] == '.' || e->d_type != DT_DIR) continue;
    out.emplace_back(e->d_name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kpp
