// Clients that hold the exporter's connections without ever finishing a
// request, as an attacker (or a broken scraper) would: `count` connections
// from `addresses` loopback addresses (127.0.1.1, 127.0.1.2, ...: all of
// 127/8 is this host, and the server tells clients apart by address), each
// sending one byte of a request every `every` (so that a timeout restarted
// by each byte never fires), re-opened as soon as the server closes them.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "http_client.h"

class slow_clients {
 public:
  slow_clients(uint16_t port, size_t count, size_t addresses, std::chrono::milliseconds every)
      : thread_([=, this] { run(port, count, addresses, every); }) {}
  ~slow_clients() {
    stop_ = true;
    thread_.join();
  }
  // Connections opened so far (more than `count`: the server cut some).
  int opened() const { return opened_; }

 private:
  void run(uint16_t port, size_t count, size_t addresses, std::chrono::milliseconds every) {
    std::vector<int> fds(count, -1);
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    for (size_t round = 0; !stop_; ++round) {
      for (size_t i = 0; i < fds.size(); ++i) {
        if (fds[i] >= 0 && closed_within(fds[i], 0)) {
          close(fds[i]);
          fds[i] = -1;
        }
        std::string from = "127.0.1." + std::to_string(1 + i % addresses);
        if (fds[i] < 0 && (fds[i] = connect_from(from.c_str(), port)) >= 0) ++opened_;
        char c = round < request.size() ? request[round] : 'a';
        if (fds[i] >= 0) send(fds[i], &c, 1, MSG_NOSIGNAL);
      }
      std::this_thread::sleep_for(every);
    }
    for (int fd : fds)
      if (fd >= 0) close(fd);
  }

  std::atomic<bool> stop_{false};
  std::atomic<int> opened_{0};
  std::thread thread_;
};
