#include "src/export/metrics_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "src/export/metrics_text.h"
#include "src/util/shared_library.h"

namespace kpp {

namespace {

// Whether `host` is a whole numeric address of its family.
bool numeric_host(const std::string &host) {
  unsigned char bytes[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), bytes) == 1 || inet_pton(AF_INET6, host.c_str(), bytes) == 1;
}

// The [HOST:] part's checks: whole numeric addresses, a name only when allowed.
Status check_host(const std::string &host, const std::string &text, bool allow_names) {
  if (numeric_host(host)) return Ok{};
  bool looks_numeric = host.find_first_not_of("0123456789.xXabcdefABCDEF") == std::string::npos;
  if (looks_numeric)
    return Error("--listen: '" + host + "' is not a whole IPv4 address, in '" + text + "'",
                 "write all four numbers: 127.0.0.1:PORT for this host only, 0.0.0.0:PORT for every interface");
  if (host.find(':') != std::string::npos) return Error("--listen: '" + host + "' is not an IPv6 address");
  if (!allow_names)
    return Error("--listen: '" + host + "' is not a numeric address",
                 "give the address (127.0.0.1, 0.0.0.0, [::1]), or add --listen-name to look the name up in DNS");
  return Ok{};
}

}  // namespace

Result<ListenAddress> parse_listen_address(const std::string &text, bool allow_names) {
  ListenAddress a{"127.0.0.1", 0};
  std::string port_text = text;
  if (!text.empty() && text[0] == '[') {  // [IPv6]:PORT
    size_t close = text.find("]:");
    if (close == std::string::npos)
      return Error("--listen: expected [ADDRESS]:PORT, got '" + text + "'", "e.g. --listen [::1]:9464");
    a.host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else if (size_t colon = text.rfind(':'); colon != std::string::npos) {
    if (text.find(':') != colon)
      return Error("--listen: write an IPv6 address in brackets, got '" + text + "'", "e.g. --listen [::1]:9464");
    if (colon > 0) a.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
    return Error("--listen: expected [HOST:]PORT with a port from 0 to 65535, got '" + text + "'",
                 "e.g. --listen 127.0.0.1:9464 (0.0.0.0:9464 to be reached from other hosts)");
  if (Status host = check_host(a.host, text, allow_names); !host) return std::move(host).error();
  a.port = static_cast<uint16_t>(port);
  return a;
}

bool is_loopback_host(const std::string &host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;  // a name: wherever DNS puts it
}

namespace {

// A listening socket on `address`, or an error naming it and why.
Result<int> listen_on(const ListenAddress &address, uint16_t &bound_port, int &family) {
  std::string where = address.host + ":" + std::to_string(address.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV | (numeric_host(address.host) ? AI_NUMERICHOST : 0);
  addrinfo *found = nullptr;
  if (int rc = getaddrinfo(address.host.c_str(), std::to_string(address.port).c_str(), &hints, &found); rc != 0)
    return Error("cannot listen on " + where + ": " + gai_strerror(rc));
  int fd = ::socket(found->ai_family, found->ai_socktype | SOCK_CLOEXEC, found->ai_protocol);
  int one = 1;
  bool ok = fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
            ::bind(fd, found->ai_addr, found->ai_addrlen) == 0 && ::listen(fd, 64) == 0;
  int err = errno;
  family = found->ai_family;
  freeaddrinfo(found);
  if (!ok) {
    if (fd >= 0) ::close(fd);
    return Error("cannot listen on " + where + ": " + std::strerror(err),
                 err == EADDRINUSE ? "choose another port with --listen" : "");
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &len);
  bound_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 *>(&bound)->sin6_port
                                                 : reinterpret_cast<sockaddr_in *>(&bound)->sin_port);
  return fd;
}

// libmicrohttpd, loaded when a server starts: linked in, it and the TLS
// libraries it loads (gnutls and seven more) cost every command ~1 ms of
// start-up, for the one command that serves HTTP.
struct HttpLibrary {
  decltype(&::MHD_start_daemon) start_daemon;
  decltype(&::MHD_stop_daemon) stop_daemon;
  decltype(&::MHD_create_response_from_buffer) create_response_from_buffer;
  decltype(&::MHD_add_response_header) add_response_header;
  decltype(&::MHD_queue_response) queue_response;
  decltype(&::MHD_destroy_response) destroy_response;
  decltype(&::MHD_get_connection_info) get_connection_info;
};

// The library's functions, or why they cannot be had.
const Result<HttpLibrary> &http_library() {
  static const Result<HttpLibrary> loaded = []() -> Result<HttpLibrary> {
    auto library = SharedLibrary::open("libmicrohttpd.so.12", "the HTTP server library", "libmicrohttpd12");
    if (!library) return std::move(library).error();
    HttpLibrary l{};
    library->get(l.start_daemon, "MHD_start_daemon");
    library->get(l.stop_daemon, "MHD_stop_daemon");
    library->get(l.create_response_from_buffer, "MHD_create_response_from_buffer");
    library->get(l.add_response_header, "MHD_add_response_header");
    library->get(l.queue_response, "MHD_queue_response");
    library->get(l.destroy_response, "MHD_destroy_response");
    library->get(l.get_connection_info, "MHD_get_connection_info");
    if (Status found = library->all_found(); !found) return std::move(found).error();
    return l;
  }();
  return loaded;
}

MHD_Result send_text(MHD_Connection *connection, unsigned status, const std::string &body, const char *content_type,
                     const char *allow = nullptr) {
  const HttpLibrary &http = *http_library();  // loaded: the server that calls this started
  MHD_Response *response =
      http.create_response_from_buffer(body.size(), const_cast<char *>(body.data()), MHD_RESPMEM_MUST_COPY);
  if (!response) return MHD_NO;
  http.add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  if (allow) http.add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
  MHD_Result r = http.queue_response(connection, status, response);
  http.destroy_response(response);
  return r;
}

}  // namespace

struct MetricsServerHandler {
  // One request: GET/HEAD /metrics renders, / says where the metrics are,
  // anything else is 404 or 405. A request with a body is answered before
  // its body is read (the library discards it).
  static MHD_Result handle(void *cls, MHD_Connection *connection, const char *url, const char *method,
                           const char *, const char *, size_t *, void **) {
    auto *server = static_cast<MetricsServer *>(cls);
    server->deadline_->answering(connection);
    bool get = !std::strcmp(method, MHD_HTTP_METHOD_GET) || !std::strcmp(method, MHD_HTTP_METHOD_HEAD);
    bool metrics = !std::strcmp(url, "/metrics");
    bool root = !std::strcmp(url, "/");
    if (!metrics && !root) return send_text(connection, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", "text/plain");
    if (!get)
      return send_text(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: use GET\n", "text/plain",
                       "GET, HEAD");
    if (root) return send_text(connection, MHD_HTTP_OK, "kprobe-probe exporter: the metrics are at /metrics\n", "text/plain");
    return send_text(connection, MHD_HTTP_OK, server->render_(), kMetricsContentType);
  }

  // The deadline's view of each connection (src/export/connection_deadline.h).
  static void on_connection(void *cls, MHD_Connection *connection, void **, MHD_ConnectionNotificationCode code) {
    auto *server = static_cast<MetricsServer *>(cls);
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
      server->deadline_->closed(connection);
      return;
    }
    const MHD_ConnectionInfo *info = http_library()->get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info) server->deadline_->started(connection, info->connect_fd);
  }

  static void on_completed(void *cls, MHD_Connection *connection, void **, MHD_RequestTerminationCode) {
    static_cast<MetricsServer *>(cls)->deadline_->answered(connection);
  }
};

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const ListenAddress &address, Render render) {
  const Result<HttpLibrary> &http = http_library();
  if (!http) return http.error();
  uint16_t port = 0;
  int family = AF_INET;
  auto fd = listen_on(address, port, family);
  if (!fd) return std::move(fd).error();
  std::unique_ptr<MetricsServer> server(new MetricsServer(std::move(render), address.host, port, *fd));
  server->deadline_ = std::make_unique<ConnectionDeadline>(kMaxConnections - kReserved);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
  if (family == AF_INET6) flags |= MHD_USE_IPv6;
  MetricsServer *s = server.get();
  server->daemon_ = http->start_daemon(
      flags, 0, nullptr, nullptr, &MetricsServerHandler::handle, s, MHD_OPTION_LISTEN_SOCKET, *fd,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, kRequestMemory, MHD_OPTION_CONNECTION_LIMIT, kMaxConnections,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, kMaxPerAddress, MHD_OPTION_CONNECTION_TIMEOUT, kTimeoutSeconds,
      MHD_OPTION_NOTIFY_CONNECTION, &MetricsServerHandler::on_connection, s, MHD_OPTION_NOTIFY_COMPLETED,
      &MetricsServerHandler::on_completed, s, MHD_OPTION_END);
  if (!server->daemon_) return Error("cannot start the HTTP server on " + server->url());
  return server;
}

MetricsServer::~MetricsServer() {
  if (daemon_) http_library()->stop_daemon(daemon_);
  if (fd_ >= 0) ::close(fd_);
}

std::string MetricsServer::url() const {
  std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  return "http://" + host + ":" + std::to_string(port_) + "/metrics";
}

}  // namespace kpp
