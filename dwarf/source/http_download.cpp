#include "dwarf/source/http_download.h"

#define CURL_DISABLE_TYPECHECK  // the functions are called through pointers (dlopen)
#include <curl/curl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/util/result.h"
#include "src/util/shared_library.h"

namespace kpp::dwarf {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPollMs = 50;  // how often a stop request and the clocks are looked at

struct CurlApi {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) setopt;
  decltype(&::curl_easy_getinfo) getinfo;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_add_handle) multi_add;
  decltype(&::curl_multi_remove_handle) multi_remove;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

// The library's functions, initialized once (curl_global_init is not
// thread-safe: a static's initializer is), or why they cannot be had.
const Result<CurlApi> &curl_api() {
  static const Result<CurlApi> loaded = []() -> Result<CurlApi> {
    auto library = SharedLibrary::open("libcurl.so.4", "the HTTP client library (libcurl)", "libcurl4");
    if (!library) return std::move(library).error();
    CurlApi c{};
    library->get(c.global_init, "curl_global_init");
    library->get(c.easy_init, "curl_easy_init");
    library->get(c.easy_cleanup, "curl_easy_cleanup");
    library->get(c.setopt, "curl_easy_setopt");
    library->get(c.getinfo, "curl_easy_getinfo");
    library->get(c.multi_init, "curl_multi_init");
    library->get(c.multi_cleanup, "curl_multi_cleanup");
    library->get(c.multi_add, "curl_multi_add_handle");
    library->get(c.multi_remove, "curl_multi_remove_handle");
    library->get(c.multi_perform, "curl_multi_perform");
    library->get(c.multi_poll, "curl_multi_poll");
    library->get(c.multi_info_read, "curl_multi_info_read");
    library->get(c.slist_append, "curl_slist_append");
    library->get(c.slist_free_all, "curl_slist_free_all");
    if (Status found = library->all_found(); !found) return std::move(found).error();
    if (c.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return Error("the HTTP client library (libcurl) did not start");
    return c;
  }();
  return loaded;
}

// What the body callback keeps: where the bytes go and how many came.
struct Body {
  int fd = -1;
  uint64_t max_bytes = 0;
  uint64_t written = 0;
  bool too_large = false;
  int write_errno = 0;
  Clock::time_point last_byte;
};

// libcurl hands the body here after content decoding: the size bound is on
// what the file would hold, whatever the wire carried.
size_t on_body(char *data, size_t size, size_t count, void *opaque) {
  auto *body = static_cast<Body *>(opaque);
  size_t length = size * count;
  if (body->written + length > body->max_bytes) {
    body->too_large = true;
    return 0;  // anything but `length` ends the transfer
  }
  for (size_t done = 0; done < length;) {
    ssize_t n = ::write(body->fd, data + done, length - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      body->write_errno = n < 0 ? errno : ENOSPC;
      return 0;
    }
    done += static_cast<size_t>(n);
  }
  body->written += length;
  body->last_byte = Clock::now();
  return length;
}

std::string seconds(std::chrono::milliseconds ms) {
  long long s = ms.count() / 1000, tenths = ms.count() % 1000 / 100;
  return std::to_string(s) + (tenths ? "." + std::to_string(tenths) : "") + " s";
}

// The usual name of an HTTP status, for messages.
std::string status_text(long status) {
  switch (status) {
    case 401: return "HTTP 401 (Unauthorized)";
    case 403: return "HTTP 403 (Forbidden)";
    case 406: return "HTTP 406 (Not Acceptable: over the size asked for)";
    case 410: return "HTTP 410 (Gone)";
    case 429: return "HTTP 429 (Too Many Requests)";
    case 500: return "HTTP 500 (Internal Server Error)";
    case 502: return "HTTP 502 (Bad Gateway)";
    case 503: return "HTTP 503 (Service Unavailable)";
    case 504: return "HTTP 504 (Gateway Timeout)";
  }
  if (status >= 300 && status < 400) return "HTTP " + std::to_string(status) + " (a redirect without a Location)";
  return "HTTP " + std::to_string(status);
}

// Why a transfer that libcurl ended with `code` failed.
std::string failure_reason(CURLcode code, const Body &body, const DownloadLimits &limits, long redirects,
                           const char *detail) {
  switch (code) {
    case CURLE_WRITE_ERROR:
      if (body.too_large)
        return "larger than " + std::to_string(limits.max_bytes) + " bytes (DEBUGINFOD_MAXSIZE), stopped there";
      return std::string("cannot write the file: ") + std::strerror(body.write_errno);
    case CURLE_FILESIZE_EXCEEDED:
      return "announced as larger than " + std::to_string(limits.max_bytes) + " bytes (DEBUGINFOD_MAXSIZE)";
    case CURLE_TOO_MANY_REDIRECTS: return "more than " + std::to_string(limits.max_redirects) + " redirects";
    case CURLE_UNSUPPORTED_PROTOCOL:
      return redirects ? "a redirect to another protocol than http or https, refused"
                       : "not an http or https URL (no other is asked)";
    case CURLE_BAD_CONTENT_ENCODING: return "a damaged compressed answer";
    case CURLE_OPERATION_TIMEDOUT: return "no connection within " + seconds(limits.first_bytes) + " (DEBUGINFOD_TIMEOUT)";
    default: break;
  }
  return *detail ? detail : "transfer failed (libcurl error " + std::to_string(static_cast<int>(code)) + ")";
}

struct Handles {
  const CurlApi &api;
  CURL *easy = nullptr;
  CURLM *multi = nullptr;
  curl_slist *headers = nullptr;
  ~Handles() {
    if (multi && easy) api.multi_remove(multi, easy);
    if (easy) api.easy_cleanup(easy);
    if (multi) api.multi_cleanup(multi);
    if (headers) api.slist_free_all(headers);
  }
};

void set_options(Handles &h, const std::string &url, const DownloadLimits &limits, Body &body, char *error_buffer) {
  const CurlApi &api = h.api;
  api.setopt(h.easy, CURLOPT_URL, url.c_str());
  api.setopt(h.easy, CURLOPT_PROTOCOLS_STR, "http,https");
  api.setopt(h.easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  api.setopt(h.easy, CURLOPT_FOLLOWLOCATION, 1L);
  api.setopt(h.easy, CURLOPT_MAXREDIRS, limits.max_redirects);
  api.setopt(h.easy, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for name lookups: other threads run
  api.setopt(h.easy, CURLOPT_ACCEPT_ENCODING, "");  // decoded by libcurl, counted decoded (on_body)
  api.setopt(h.easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limits.first_bytes.count()));
  api.setopt(h.easy, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(limits.max_bytes));
  api.setopt(h.easy, CURLOPT_USERAGENT, "kprobe-probe");
  api.setopt(h.easy, CURLOPT_WRITEFUNCTION, &on_body);
  api.setopt(h.easy, CURLOPT_WRITEDATA, &body);
  api.setopt(h.easy, CURLOPT_ERRORBUFFER, error_buffer);
  if (h.headers) api.setopt(h.easy, CURLOPT_HTTPHEADER, h.headers);
}

// Why the running transfer must end now, or "" while it may go on.
std::string over_a_bound(const Body &body, const DownloadLimits &limits, Clock::time_point start) {
  auto now = Clock::now();
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - start);
  if (elapsed > limits.total) return "not done after " + seconds(limits.total) + " (DEBUGINFOD_MAXTIME)";
  if (body.written < DownloadLimits::kFirstBytes) {
    if (elapsed < limits.first_bytes) return "";
    return body.written ? "only " + std::to_string(body.written) + " bytes in " + seconds(limits.first_bytes) +
                              " (DEBUGINFOD_TIMEOUT)"
                        : "no answer within " + seconds(limits.first_bytes) + " (DEBUGINFOD_TIMEOUT)";
  }
  if (now - body.last_byte > limits.stall) return "no byte for " + seconds(limits.stall) + " (DEBUGINFOD_TIMEOUT)";
  return "";
}

// What a transfer that libcurl finished came to.
DownloadOutcome outcome_of(const Handles &h, const Body &body, const DownloadLimits &limits, const char *error_buffer) {
  const CurlApi &api = h.api;
  DownloadOutcome out;
  int left = 0;
  CURLMsg *message = api.multi_info_read(h.multi, &left);
  CURLcode code = message && message->msg == CURLMSG_DONE ? message->data.result : CURLE_GOT_NOTHING;
  out.bytes = body.written;
  api.getinfo(h.easy, CURLINFO_RESPONSE_CODE, &out.http_status);
  if (char *type = nullptr; api.getinfo(h.easy, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type) out.content_type = type;
  if (code != CURLE_OK) {
    long redirects = 0;
    api.getinfo(h.easy, CURLINFO_REDIRECT_COUNT, &redirects);
    out.reason = failure_reason(code, body, limits, redirects, error_buffer);
    return out;
  }
  if (out.http_status == 200) out.kind = DownloadOutcome::Kind::Done;
  else if (out.http_status == 404) out.kind = DownloadOutcome::Kind::NotFound;
  out.reason = out.http_status == 404 ? "not on the server" : status_text(out.http_status);
  return out;
}

}  // namespace

DownloadOutcome http_download(const std::string &url, int fd, const DownloadLimits &limits,
                              const std::vector<std::string> &headers, const std::function<bool()> &cancelled,
                              const ByteProgress &progress) {
  DownloadOutcome out;
  const Result<CurlApi> &api = curl_api();
  if (!api) {
    out.reason = api.error().message;
    return out;
  }
  Handles h{*api};
  h.easy = api->easy_init();
  h.multi = api->multi_init();
  for (const std::string &header : headers) h.headers = api->slist_append(h.headers, header.c_str());
  if (!h.easy || !h.multi) {
    out.reason = "the HTTP client library (libcurl) did not start";
    return out;
  }
  Body body;
  body.fd = fd;
  body.max_bytes = limits.max_bytes;
  char error_buffer[CURL_ERROR_SIZE] = "";
  set_options(h, url, limits, body, error_buffer);
  api->multi_add(h.multi, h.easy);
  auto start = Clock::now();
  body.last_byte = start;
  for (int running = 1;;) {
    api->multi_perform(h.multi, &running);
    if (!running) break;
    if (cancelled && cancelled()) {
      out.kind = DownloadOutcome::Kind::Cancelled;
      out.reason = "stopped";
      return out;
    }
    if (std::string bound = over_a_bound(body, limits, start); !bound.empty()) {
      out.reason = bound;
      out.bytes = body.written;
      return out;
    }
    if (progress) {
      curl_off_t total = 0;
      api->getinfo(h.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &total);
      progress(body.written, total > 0 ? static_cast<uint64_t>(total) : 0);
    }
    api->multi_poll(h.multi, nullptr, 0, kPollMs, nullptr);
  }
  return outcome_of(h, body, limits, error_buffer);
}

}  // namespace kpp::dwarf
