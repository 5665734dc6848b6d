// Debug files and sources fetched by build-id from debuginfod servers, through
// elfutils' client library (libdebuginfod): the servers named by
// $DEBUGINFOD_URLS (space-separated), its cache ($DEBUGINFOD_CACHE_PATH, by
// default ~/.cache/debuginfod_client), its timeouts ($DEBUGINFOD_TIMEOUT)
// and size limits ($DEBUGINFOD_MAXSIZE) as the library applies them.
//
// A fetched file is untrusted input like any other: callers open it with the
// same checks as a local debug file. Nothing here prints; a progress
// callback set by the CLI may.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "util/result.h"

namespace kpp::dwarf {

// True when $DEBUGINFOD_URLS names at least one server.
bool debuginfod_enabled();

// The servers, as $DEBUGINFOD_URLS lists them ("" when unset).
std::string debuginfod_urls();

// What the progress callback is told while a file downloads.
struct DownloadProgress {
  std::string what;     // "debug info for build-id 1a2b...", "source /src/prog.c"
  std::string url;      // the server answering, when the library knows it
  uint64_t done = 0;    // bytes so far
  uint64_t total = 0;   // 0 when the server did not say
  bool finished = false;  // the last call of a download
};
using DownloadProgressFn = std::function<void(const DownloadProgress &)>;

// Called during downloads (for the CLI's progress line); none by default.
void set_debuginfod_progress(DownloadProgressFn fn);

// The debug file (DWARF) of the binary with `build_id` (lowercase hex), as a
// path in the client's cache. Errors name the servers and the build-id, with
// the reason (not on the servers, connection refused, timed out, ...).
Result<std::string> debuginfod_find_debuginfo(const std::string &build_id);

// The executable of `build_id`, as a path in the cache (for a vmlinux or
// module the local copy of which has no symbols).
Result<std::string> debuginfod_find_executable(const std::string &build_id);

// The source file `source_path` (as DW_AT_name/comp_dir name it, absolute)
// of the binary with `build_id`, as a path in the cache.
Result<std::string> debuginfod_find_source(const std::string &build_id, const std::string &source_path);

}  // namespace kpp::dwarf
