// One file fetched over HTTP or HTTPS with every cost bounded: the time to
// the first bytes, the time without a byte, the whole time, the size after
// content decoding (a gzip body is counted as the bytes it inflates to,
// not as the bytes on the wire), and the redirects followed (http and https
// only). A caller's stop request ends it within ~50 ms. Through libcurl,
// loaded on the first download (linked in, it and its TLS libraries would
// cost every run their start-up, for the few runs that fetch anything).
//
// Nothing here touches a cache or knows debuginfod: the bytes go to a file
// descriptor the caller owns, and the outcome says what the server did.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kpp::dwarf {

struct DownloadLimits {
  // Connecting and the first kFirstBytes (or the whole file) within this.
  std::chrono::milliseconds first_bytes{10'000};
  // No byte at all for this long ends the download.
  std::chrono::milliseconds stall{10'000};
  // The whole download, redirects included.
  std::chrono::milliseconds total{300'000};
  // Bytes written, after content decoding.
  uint64_t max_bytes = uint64_t{2} << 30;
  long max_redirects = 4;
  static constexpr uint64_t kFirstBytes = 100 * 1024;
};

// The bounds of one download, from the environment, as elfutils' client
// names them (our defaults are tighter than its 90 s and no size limit):
//   DEBUGINFOD_TIMEOUT=S   connect and the first 100 KB within S seconds,
//                          and no S seconds without a byte (default 10)
//   DEBUGINFOD_MAXTIME=S   the whole download (default 300)
//   DEBUGINFOD_MAXSIZE=B   bytes of the file, after content decoding
//                          (default 2 GiB; also sent as X-DEBUGINFOD-MAXSIZE)
// A value that is not a positive number leaves the default.
DownloadLimits debuginfod_limits();

struct DownloadOutcome {
  enum class Kind {
    Done,       // HTTP 200: the body is in the file
    NotFound,   // HTTP 404: the server does not have it
    Failed,     // anything else: `reason` says what
    Cancelled,  // the caller asked to stop
  };
  Kind kind = Kind::Failed;
  long http_status = 0;      // 0 when no answer came
  std::string reason;        // "HTTP 500 (Internal Server Error)", "no byte for 10 s", ...
  std::string content_type;  // as the server said it
  uint64_t bytes = 0;        // written to the file
};

// Called now and then with the bytes so far and the total the server
// announced (0: unknown). May be empty.
using ByteProgress = std::function<void(uint64_t done, uint64_t total)>;

// Downloads `url` into `fd` (written from where it stands), with the request
// headers `headers` ("Name: value"). `cancelled`, when given, is asked every
// ~50 ms. Never throws; the outcome names the failure.
DownloadOutcome http_download(const std::string &url, int fd, const DownloadLimits &limits,
                              const std::vector<std::string> &headers, const std::function<bool()> &cancelled,
                              const ByteProgress &progress);

}  // namespace kpp::dwarf
