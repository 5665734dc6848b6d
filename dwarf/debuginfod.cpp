#include "dwarf/debuginfod.h"

#include <elfutils/debuginfod.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

namespace kpp::dwarf {

namespace {

std::mutex progress_mutex;
DownloadProgressFn progress_fn;

struct ClientDeleter {
  void operator()(debuginfod_client *c) const { debuginfod_end(c); }
};

// One download's context for the library's progress callback.
struct Download {
  std::string what;
  bool reported = false;
};

int on_progress(debuginfod_client *client, long done, long total) {
  auto *d = static_cast<Download *>(debuginfod_get_user_data(client));
  std::lock_guard lock(progress_mutex);
  if (!progress_fn || !d) return 0;
  DownloadProgress p;
  p.what = d->what;
  if (const char *url = debuginfod_get_url(client)) p.url = url;
  p.done = done > 0 ? static_cast<uint64_t>(done) : 0;
  p.total = total > 0 ? static_cast<uint64_t>(total) : 0;
  d->reported = true;
  progress_fn(p);
  return 0;  // non-zero would cancel the download
}

bool is_build_id(const std::string &hex) {
  if (hex.empty() || hex.size() % 2 || hex.size() > 128) return false;
  for (char c : hex)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Runs one lookup; `find` is the library call with its client and path out-parameter.
template <class Find>
Result<std::string> fetch(const std::string &build_id, const std::string &what, Find find) {
  std::string servers = debuginfod_urls();
  std::string where = what + " of build-id " + build_id + " from debuginfod (" + servers + ")";
  if (servers.empty()) return Error("cannot fetch " + where + ": DEBUGINFOD_URLS is not set");
  if (!is_build_id(build_id)) return Error("cannot fetch " + where + ": not a build-id");
  std::unique_ptr<debuginfod_client, ClientDeleter> client(debuginfod_begin());
  if (!client) return Error("cannot fetch " + where + ": the debuginfod client did not start");
  Download download{what + " of build-id " + build_id};
  debuginfod_set_user_data(client.get(), &download);
  debuginfod_set_progressfn(client.get(), on_progress);
  char *path = nullptr;
  int fd = find(client.get(), &path);
  if (download.reported) {
    std::lock_guard lock(progress_mutex);
    if (progress_fn) progress_fn(DownloadProgress{download.what, "", 0, 0, true});
  }
  if (fd < 0) {
    std::string reason = fd == -ENOENT ? "not on the servers" : std::strerror(-fd);
    return Error("cannot fetch " + where + ": " + reason,
                 "check DEBUGINFOD_URLS, or install the debug symbols locally (DEBUGINFOD_TIMEOUT=SECONDS for slow servers)");
  }
  ::close(fd);
  std::string result = path ? path : "";
  std::free(path);
  if (result.empty()) return Error("cannot fetch " + where + ": the client returned no path");
  return result;
}

}  // namespace

std::string debuginfod_urls() {
  const char *urls = std::getenv(DEBUGINFOD_URLS_ENV_VAR);
  return urls ? urls : "";
}

bool debuginfod_enabled() { return debuginfod_urls().find_first_not_of(" \t") != std::string::npos; }

void set_debuginfod_progress(DownloadProgressFn fn) {
  std::lock_guard lock(progress_mutex);
  progress_fn = std::move(fn);
}

Result<std::string> debuginfod_find_debuginfo(const std::string &build_id) {
  return fetch(build_id, "the debug info", [&](debuginfod_client *c, char **path) {
    return debuginfod_find_debuginfo(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0, path);
  });
}

Result<std::string> debuginfod_find_executable(const std::string &build_id) {
  return fetch(build_id, "the executable", [&](debuginfod_client *c, char **path) {
    return debuginfod_find_executable(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0, path);
  });
}

Result<std::string> debuginfod_find_source(const std::string &build_id, const std::string &source_path) {
  return fetch(build_id, "source " + source_path, [&](debuginfod_client *c, char **path) {
    return debuginfod_find_source(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0,
                                  source_path.c_str(), path);
  });
}

}  // namespace kpp::dwarf
