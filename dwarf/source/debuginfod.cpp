#include "dwarf/debuginfod.h"

#include <elfutils/debuginfod.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "util/shared_library.h"

namespace kpp::dwarf {

namespace {

std::mutex progress_mutex;
DownloadProgressFn progress_fn;

// The client library, loaded on the first fetch: linked in, it and what it
// loads (curl, gnutls, kerberos, ldap: ~35 libraries) cost every run ~8 ms
// of start-up, twice the whole work of a cached -D; most runs fetch nothing.
struct Client {
  decltype(&::debuginfod_begin) begin;
  decltype(&::debuginfod_end) end;
  decltype(&::debuginfod_set_user_data) set_user_data;
  decltype(&::debuginfod_get_user_data) get_user_data;
  decltype(&::debuginfod_set_progressfn) set_progressfn;
  decltype(&::debuginfod_get_url) get_url;
  decltype(&::debuginfod_find_debuginfo) find_debuginfo;
  decltype(&::debuginfod_find_executable) find_executable;
  decltype(&::debuginfod_find_source) find_source;
};

// The library's functions, or why they cannot be had.
const Result<Client> &client_library() {
  static const Result<Client> loaded = []() -> Result<Client> {
    auto library = SharedLibrary::open("libdebuginfod.so.1", "the debuginfod client library", "libdebuginfod1");
    if (!library) return std::move(library).error();
    Client c{};
    library->get(c.begin, "debuginfod_begin");
    library->get(c.end, "debuginfod_end");
    library->get(c.set_user_data, "debuginfod_set_user_data");
    library->get(c.get_user_data, "debuginfod_get_user_data");
    library->get(c.set_progressfn, "debuginfod_set_progressfn");
    library->get(c.get_url, "debuginfod_get_url");
    library->get(c.find_debuginfo, "debuginfod_find_debuginfo");
    library->get(c.find_executable, "debuginfod_find_executable");
    library->get(c.find_source, "debuginfod_find_source");
    if (Status found = library->all_found(); !found) return std::move(found).error();
    return c;
  }();
  return loaded;
}

struct ClientDeleter {
  void operator()(debuginfod_client *c) const { client_library()->end(c); }
};

// One download's context for the library's progress callback.
struct Download {
  std::string what;
  bool reported = false;
};

int on_progress(debuginfod_client *client, long done, long total) {
  auto *d = static_cast<Download *>(client_library()->get_user_data(client));
  std::lock_guard lock(progress_mutex);
  if (!progress_fn || !d) return 0;
  DownloadProgress p;
  p.what = d->what;
  if (const char *url = client_library()->get_url(client)) p.url = url;
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
  const Result<Client> &library = client_library();
  if (!library) return Error("cannot fetch " + where + ": " + library.error().message, library.error().hint);
  std::unique_ptr<debuginfod_client, ClientDeleter> client(library->begin());
  if (!client) return Error("cannot fetch " + where + ": the debuginfod client did not start");
  Download download{what + " of build-id " + build_id};
  library->set_user_data(client.get(), &download);
  library->set_progressfn(client.get(), on_progress);
  char *path = nullptr;
  int fd = find(*library, client.get(), &path);
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
  return fetch(build_id, "the debug info", [&](const Client &lib, debuginfod_client *c, char **path) {
    return lib.find_debuginfo(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0, path);
  });
}

Result<std::string> debuginfod_find_executable(const std::string &build_id) {
  return fetch(build_id, "the executable", [&](const Client &lib, debuginfod_client *c, char **path) {
    return lib.find_executable(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0, path);
  });
}

Result<std::string> debuginfod_find_source(const std::string &build_id, const std::string &source_path) {
  return fetch(build_id, "source " + source_path, [&](const Client &lib, debuginfod_client *c, char **path) {
    return lib.find_source(c, reinterpret_cast<const unsigned char *>(build_id.c_str()), 0,
                                  source_path.c_str(), path);
  });
}

}  // namespace kpp::dwarf
