#include "dwarf/debuginfod.h"

#include <llvm/Object/ObjectFile.h>

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

#include "dwarf/elf/elf_image.h"
#include "dwarf/elf/mapped_object.h"
#include "dwarf/source/debuginfod_cache.h"
#include "dwarf/source/http_download.h"

namespace kpp::dwarf {

namespace {

std::mutex hooks_mutex;
DownloadProgressFn progress_fn;
std::function<bool()> cancel_fn;

bool is_build_id(const std::string &hex) {
  if (hex.empty() || hex.size() % 2 || hex.size() > 128) return false;
  for (char c : hex)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A positive number of the environment variable `name`, else `fallback`.
uint64_t env_number(const char *name, uint64_t fallback) {
  const char *text = std::getenv(name);
  if (!text || !*text) return fallback;
  char *end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  return *end == '\0' && v > 0 ? v : fallback;
}

std::vector<std::string> servers() {
  std::vector<std::string> out;
  std::istringstream words(debuginfod_urls());
  for (std::string url; words >> url;) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    if (!url.empty()) out.push_back(url);
  }
  return out;
}

// A source path as the URL's path: every byte but unreserved ones and '/'
// percent-encoded.
std::string url_path(const std::string &path) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += {'%', hex[c >> 4], hex[c & 15]};
  }
  return out;
}

// What is asked for: the kind of file and how messages name it.
struct Wanted {
  std::string build_id;
  std::string kind;         // debuginfo, executable, source
  std::string source_path;  // for a source
  std::string what;         // "the debug info"
  std::string url_suffix() const {
    return "/buildid/" + build_id + "/" + kind + (kind == "source" ? url_path(source_path) : "");
  }
};

// Why the file at `path` is not the answer to `wanted`, or "" when it is:
// an executable or debug file must be an ELF file carrying the build-id
// asked for (a server or a cache that sends another is refused).
std::string why_not_the_answer(const std::string &path, const Wanted &wanted) {
  if (wanted.kind == "source") return "";
  auto file = open_mapped_object(path);
  if (!file) return "not an ELF file that can be read (" + file.error().message + ")";
  const llvm::object::ObjectFile &object = *file->binary.getBinary();
  if (!object.isELF()) return "not an ELF file";
  std::string id = build_id_of(object);
  if (id.empty()) return "an ELF file without a build-id";
  if (id != wanted.build_id) return "the file of build-id " + id + ", not " + wanted.build_id;
  return "";
}

void report_progress(const DownloadProgress &p) {
  std::lock_guard lock(hooks_mutex);
  if (progress_fn) progress_fn(p);
}

bool cancel_requested() {
  std::lock_guard lock(hooks_mutex);
  return cancel_fn && cancel_fn();
}

// Who asks: what stops its downloads, whether it shows their progress.
struct Asker {
  std::function<bool()> cancelled;
  bool shows_progress = true;
};

// One server's answer into `pending`: "" when it is the file, else why not.
std::string ask_server(const std::string &server, const Wanted &wanted, const Asker &asker, PendingFile &pending,
                       bool &cancelled, bool &not_found) {
  std::string url = server + wanted.url_suffix();
  DownloadLimits limits = debuginfod_limits();
  DownloadProgress progress{wanted.what + " of build-id " + wanted.build_id, server};
  DownloadOutcome got = http_download(
      url, pending.fd(), limits, {"X-DEBUGINFOD-MAXSIZE: " + std::to_string(limits.max_bytes)}, asker.cancelled,
      [&](uint64_t done, uint64_t total) {
        progress.done = done;
        progress.total = total;
        if (asker.shows_progress) report_progress(progress);
      });
  if (asker.shows_progress && progress.done) report_progress(DownloadProgress{progress.what, "", 0, 0, true});
  cancelled = got.kind == DownloadOutcome::Kind::Cancelled;
  not_found = got.kind == DownloadOutcome::Kind::NotFound;
  if (got.kind != DownloadOutcome::Kind::Done) return got.reason;
  std::string type = got.content_type;
  for (char &c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (type.starts_with("text/html")) return "an HTML page (Content-Type " + got.content_type + "), not a file";
  return why_not_the_answer(pending.proc_path(), wanted);
}

}  // namespace

std::string debuginfod_urls() {
  const char *urls = std::getenv("DEBUGINFOD_URLS");
  return urls ? urls : "";
}

bool debuginfod_enabled() { return !servers().empty(); }

DownloadLimits debuginfod_limits() {
  DownloadLimits limits;
  auto timeout = std::chrono::seconds(env_number("DEBUGINFOD_TIMEOUT", 10));
  limits.first_bytes = limits.stall = timeout;
  limits.total = std::chrono::seconds(env_number("DEBUGINFOD_MAXTIME", 300));
  limits.max_bytes = env_number("DEBUGINFOD_MAXSIZE", limits.max_bytes);
  return limits;
}

void set_debuginfod_progress(DownloadProgressFn fn) {
  std::lock_guard lock(hooks_mutex);
  progress_fn = std::move(fn);
}

void set_debuginfod_cancel(std::function<bool()> cancelled) {
  std::lock_guard lock(hooks_mutex);
  cancel_fn = std::move(cancelled);
}

namespace {

// The cached answer when it passes the check; a cached file that fails it
// is removed (a lying server or a damaged disk must not win for good).
std::optional<std::string> cached_answer(const CacheEntry &entry, const Wanted &wanted, std::string &removed) {
  if (access(entry.path().c_str(), F_OK) != 0) return std::nullopt;
  std::string why = why_not_the_answer(entry.path(), wanted);
  if (why.empty()) return entry.path();
  std::remove(entry.path().c_str());
  removed = "removed the cached " + entry.path() + " (" + why + "); ";
  return std::nullopt;
}

Result<std::string> fetch(const Wanted &wanted, const Asker &asker = Asker{cancel_requested, true}) {
  std::string urls = debuginfod_urls();
  std::string where = wanted.what + " of build-id " + wanted.build_id + " from debuginfod (" + urls + ")";
  std::vector<std::string> asked = servers();
  if (asked.empty()) return Error("cannot fetch " + where + ": DEBUGINFOD_URLS is not set");
  if (!is_build_id(wanted.build_id)) return Error("cannot fetch " + where + ": not a build-id");
  CacheEntry entry = cache_entry(wanted.build_id, wanted.kind, wanted.source_path);
  std::string removed;
  if (auto cached = cached_answer(entry, wanted, removed)) return *cached;
  const char *hint = "check DEBUGINFOD_URLS, or install the debug symbols locally (DEBUGINFOD_TIMEOUT, "
                     "DEBUGINFOD_MAXTIME and DEBUGINFOD_MAXSIZE bound a download)";
  if (auto failed = remembered_failure(entry, urls))
    return Error("cannot fetch " + where + ": " + failed->reason + " (remembered from " +
                     std::to_string(failed->age.count()) + " s ago; asked again after " +
                     std::to_string(failed->retry_after.count()) + " s, or remove " + entry.failure_path() + ")",
                 hint);
  auto pending = PendingFile::create(entry);
  if (!pending) return Error("cannot fetch " + where + ": " + pending.error().message);
  std::string reasons;
  bool all_not_found = true;
  for (const std::string &server : asked) {
    bool cancelled = false, not_found = false;
    if (Status fresh = pending->restart(); !fresh) return Error("cannot fetch " + where + ": " + fresh.error().message);
    std::string why = ask_server(server, wanted, asker, *pending, cancelled, not_found);
    if (cancelled) return Error("cannot fetch " + where + ": stopped");
    if (why.empty()) {
      if (Status kept = pending->commit(); !kept) return Error("cannot fetch " + where + ": " + kept.error().message);
      return entry.path();
    }
    all_not_found = all_not_found && not_found;
    reasons += (reasons.empty() ? "" : "; ") + (asked.size() > 1 ? server + ": " : std::string()) + why;
  }
  std::string reason = removed + (all_not_found ? std::string("not on the servers") : reasons);
  remember_failure(entry, urls, reason);
  return Error("cannot fetch " + where + ": " + reason, hint);
}

}  // namespace

Result<std::string> debuginfod_find_debuginfo(const std::string &build_id) {
  return fetch(Wanted{build_id, "debuginfo", "", "the debug info"});
}

Result<std::string> debuginfod_find_executable(const std::string &build_id) {
  return fetch(Wanted{build_id, "executable", "", "the executable"});
}

Result<std::string> debuginfod_find_source(const std::string &build_id, const std::string &source_path) {
  return fetch(Wanted{build_id, "source", source_path, "source " + source_path});
}

Result<std::string> debuginfod_fetch_debuginfo_in_thread(const std::string &build_id,
                                                        const std::function<bool()> &cancelled) {
  return fetch(Wanted{build_id, "debuginfo", "", "the debug info"}, Asker{cancelled, false});
}

std::optional<std::string> debuginfod_cached_debuginfo(const std::string &build_id) {
  if (!is_build_id(build_id)) return std::nullopt;
  std::string removed;
  return cached_answer(cache_entry(build_id, "debuginfo"), Wanted{build_id, "debuginfo", "", "the debug info"}, removed);
}

}  // namespace kpp::dwarf
