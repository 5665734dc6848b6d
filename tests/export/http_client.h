// A raw HTTP/1.1 client for the export tests: sends bytes exactly as given
// (so tests can send malformed and oversized requests) and reads the
// answer until the server closes the connection.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

struct http_answer {
  int status = 0;  // 0: no answer (connection refused or closed early)
  std::string headers;
  std::string body;
};

inline http_answer http_raw(uint16_t port, const std::string &request, int timeout_ms = 5000) {
  http_answer a;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    if (fd >= 0) close(fd);
    return a;
  }
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and close before reading it all
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0) break;
    char buf[8192];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  size_t end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.", 0) != 0 || end == std::string::npos) return a;
  a.status = std::stoi(raw.substr(9, 3));
  a.headers = raw.substr(0, end);
  a.body = raw.substr(end + 4);
  return a;
}

// A loopback port nobody listens on now (the kernel's choice for port 0),
// for a server the test starts next.
inline uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
  getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

inline http_answer http_get(uint16_t port, const std::string &target) {
  return http_raw(port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

// A connection to 127.0.0.1:`port` from the loopback address `from`
// (127.0.0.2, ...: all of 127/8 is this host), as another client would make.
inline int connect_from(const char *from, uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in source{}, target{};
  source.sin_family = target.sin_family = AF_INET;
  inet_pton(AF_INET, from, &source.sin_addr);
  target.sin_port = htons(port);
  target.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr *>(&source), sizeof source) != 0 ||
      connect(fd, reinterpret_cast<sockaddr *>(&target), sizeof target) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Whether the server has closed `fd` (EOF or reset) within `ms`.
inline bool closed_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, ms) <= 0) return false;
  char c;
  return recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

