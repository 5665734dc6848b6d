// The debuginfod client cache, laid out as elfutils' client lays it out (so
// that gdb and we share what either fetched): $DEBUGINFOD_CACHE_PATH, else
// $XDG_CACHE_HOME/debuginfod_client, else ~/.cache/debuginfod_client; one
// directory per build-id holding `debuginfo`, `executable` and `source...`.
//
// A file enters the cache whole or not at all: it is written unnamed
// (O_TMPFILE) and named only once checked, so a download stopped by any
// means (Ctrl-C, SIGKILL, a bound) leaves nothing behind. A failure is
// remembered next to where the file would be (.kpp-failed-NAME) with the
// servers asked and why, for the cache's `cache_miss_s` seconds (600
// unless that file says otherwise, as for elfutils' client), so that each
// run does not pay the same timeout again.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "src/util/result.h"
#include "src/util/unique_fd.h"

namespace kpp::dwarf {

struct CacheEntry {
  std::string dir;   // <cache>/<build-id>
  std::string name;  // debuginfo, executable, source#usr#src#prog.c
  std::string path() const { return dir + "/" + name; }
  std::string failure_path() const { return dir + "/.kpp-failed-" + name; }
};

// The cache's directory.
std::string debuginfod_cache_dir();

// Where the file `kind` (debuginfo, executable, source) of `build_id` is
// kept; `source_path` for a source.
CacheEntry cache_entry(const std::string &build_id, const std::string &kind, const std::string &source_path = {});

// A failure of the same servers (`urls`) remembered for this entry within
// the retry period: what it said, and how long ago.
struct RememberedFailure {
  std::string reason;
  std::chrono::seconds age{0};
  std::chrono::seconds retry_after{0};
};
std::optional<RememberedFailure> remembered_failure(const CacheEntry &entry, const std::string &urls);
void remember_failure(const CacheEntry &entry, const std::string &urls, const std::string &reason);
void forget_failure(const CacheEntry &entry);

// A file being written into the entry's directory, unnamed until commit().
class PendingFile {
 public:
  static Result<PendingFile> create(const CacheEntry &entry);
  int fd() const { return fd_.get(); }
  // A path that opens the unnamed file (/proc/self/fd/N), for checks.
  std::string proc_path() const { return "/proc/self/fd/" + std::to_string(fd_.get()); }
  // Empties the file for another server's answer.
  Status restart();
  // Names it entry.path(), replacing what was there.
  Status commit();

 private:
  PendingFile(CacheEntry entry, UniqueFd fd) : entry_(std::move(entry)), fd_(std::move(fd)) {}
  CacheEntry entry_;
  UniqueFd fd_;
};

}  // namespace kpp::dwarf
