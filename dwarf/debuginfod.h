// Debug files and sources fetched by build-id from debuginfod servers (the
// protocol of elfutils' debuginfod: GET /buildid/ID/debuginfo, /executable,
// /source/PATH), from the servers $DEBUGINFOD_URLS names (space-separated),
// in order, into elfutils' client cache (dwarf/source/debuginfod_cache.h).
//
// Our own client, not elfutils' libdebuginfod (0.188): that one cannot be
// bounded enough -- its size limit is checked on the wire, so a 1 MB gzip
// body became a 1 GiB file; it follows redirects without a limit (4,851
// requests in 0.8 s); it sees a stop request only between its waits of up
// to a second; HTTP 500 and 403 read as "not found"; and a file enters its
// cache before anyone checks it. Here every download is bounded
// (dwarf/source/http_download.h, debuginfod_limits()), a stop request
// (set_debuginfod_cancel) ends it within ~50 ms, an answer enters the cache
// only once it is an ELF file of the build-id asked for (a source: once it
// is not an HTML page), a cached file that fails that check is removed and
// the servers asked again, and a failure is remembered for a while.
//
// A fetched file is still untrusted input: callers open it with the same
// checks as a local debug file. Nothing here prints; a progress callback set
// by the CLI may.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "util/result.h"

namespace kpp::dwarf {

// True when $DEBUGINFOD_URLS names at least one server.
bool debuginfod_enabled();

// The servers, as $DEBUGINFOD_URLS lists them ("" when unset).
std::string debuginfod_urls();


// Asked every ~50 ms while a download runs in this thread: true stops it
// (the CLI passes its Ctrl-C flag). None by default.
void set_debuginfod_cancel(std::function<bool()> cancelled);

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
// each server's answer (not on the server, HTTP 500 (Internal Server Error),
// no answer within 10 s (DEBUGINFOD_TIMEOUT), the file of another build-id,
// ...), or the failure remembered from an earlier run and its age.
Result<std::string> debuginfod_find_debuginfo(const std::string &build_id);

// The executable of `build_id`, as a path in the cache (for a vmlinux or
// module the local copy of which has no symbols).
Result<std::string> debuginfod_find_executable(const std::string &build_id);

// The source file `source_path` (as DW_AT_name/comp_dir name it, absolute)
// of the binary with `build_id`, as a path in the cache.
Result<std::string> debuginfod_find_source(const std::string &build_id, const std::string &source_path);

// As debuginfod_find_debuginfo, for a thread of its own
// (dwarf/source/debuginfod_background.h): stopped by `cancelled`, not by
// set_debuginfod_cancel's hook, and showing no progress.
Result<std::string> debuginfod_fetch_debuginfo_in_thread(const std::string &build_id,
                                                        const std::function<bool()> &cancelled);

// The debug file of `build_id` when the cache has it (checked as a fetched
// one is), without asking any server; nullopt when it has not.
std::optional<std::string> debuginfod_cached_debuginfo(const std::string &build_id);

}  // namespace kpp::dwarf
