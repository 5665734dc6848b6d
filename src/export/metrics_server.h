// MetricsServer: serves GET /metrics over HTTP/1.1 with GNU libmicrohttpd
// (Debian's libmicrohttpd-dev), on a thread of its own.
//
// Why libmicrohttpd: a small C library with a long record as a server for
// untrusted clients (it parses and bounds the request itself: header size,
// connections, timeouts), packaged by Debian with a stable ABI, and the
// exporter needs nothing of a framework -- one path, one method. cpp-httplib
// would be a header-only copy compiled into the binary; civetweb brings a
// whole web server (CGI, Lua, file serving) to switch off.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "src/util/result.h"

#include "src/export/connection_deadline.h"

struct MHD_Daemon;

namespace kpp {

struct ListenAddress {
  std::string host;  // numeric (a name only when allowed); "127.0.0.1" when none was given
  uint16_t port = 0; // 0: any free port (MetricsServer::port() says which)
};

// "[HOST:]PORT", "[::1]:PORT", ":PORT". Without a host, the loopback
// address: the exporter is reachable from outside only when told so. HOST
// is a whole numeric address (a dotted quad, or IPv6 in brackets): "0",
// "127.1" or "0x7f000001", which the C library would read as addresses
// (every interface for "0"), are refused, and so is a name unless
// `allow_names` (--listen-name: looked up once, through DNS).
Result<ListenAddress> parse_listen_address(const std::string &text, bool allow_names = false);

// Whether `host` (as parsed above) is a loopback address (127.0.0.0/8, ::1):
// anything else is reachable from other hosts, and export warns so.
bool is_loopback_host(const std::string &host);

class MetricsServer {
 public:
  // Renders the body of GET /metrics; called on the server's thread.
  using Render = std::function<std::string()>;

  // Largest request (line and headers) accepted; beyond it the client gets
  // 431 or 414 from the library and the connection's memory stays bounded.
  static constexpr size_t kRequestMemory = 16 * 1024;
  // At most kMaxConnections open, kMaxPerAddress of them from one address:
  // a client cannot take every slot (a scraper's own connection is free).
  // A request must come whole within ConnectionDeadline::kDeadline
  // (src/export/connection_deadline.h); an answer being sent may idle for
  // kTimeoutSeconds (the library's timeout, restarted by each byte).
  static constexpr unsigned kMaxConnections = 128;
  static constexpr unsigned kMaxPerAddress = 8;
  // Past kMaxConnections - kReserved open, a new connection has the oldest
  // idle one cut (ConnectionDeadline): the library's hard limit, which would
  // refuse a scraper, is never reached.
  static constexpr unsigned kReserved = 16;
  static constexpr unsigned kTimeoutSeconds = 10;

  // Binds and listens on `address`, then serves until destroyed. Errors name
  // the address and the system's reason (in use, no such host, ...).
  static Result<std::unique_ptr<MetricsServer>> start(const ListenAddress &address, Render render);
  ~MetricsServer();
  MetricsServer(const MetricsServer &) = delete;
  MetricsServer &operator=(const MetricsServer &) = delete;

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:9464/metrics" ("[::1]" for IPv6 hosts).
  std::string url() const;

 private:
  MetricsServer(Render render, std::string host, uint16_t port, int fd)
      : render_(std::move(render)), host_(std::move(host)), port_(port), fd_(fd) {}

  Render render_;
  std::unique_ptr<ConnectionDeadline> deadline_;  // before daemon_: stopped after it
  std::string host_;
  uint16_t port_;
  int fd_;
  MHD_Daemon *daemon_ = nullptr;

  friend struct MetricsServerHandler;
};

}  // namespace kpp
