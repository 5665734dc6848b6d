// A deadline per connection of the metrics server that no trickle of bytes
// extends: libmicrohttpd's own timeout restarts on every byte, so a client
// sending a header a byte every few seconds (or sending nothing after
// connecting, or idling between requests) would hold its connection for
// ever, and 64 of them stopped every scrape (issue 30).
//
// A connection must have sent a whole request within kDeadline of its start
// or of the end of its previous answer; while it is being answered it is
// left alone (the answer is in memory; the library's inactivity timeout
// covers a reader that stalls). Past the deadline its socket is shut down
// (shutdown(2), not close: the library still owns the descriptor and
// closes it), from a thread of its own that looks every kTick.
//
// And room for a newcomer: past `room` open connections, each new one has
// the oldest that is not being answered cut at once, so that clients from
// many addresses that hold connections (under the per-address share) never
// fill the server's slots: a scraper's connection, the newest, gets in, and
// its request, sent at once, is answered.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace kpp {

class ConnectionDeadline {
 public:
  static constexpr std::chrono::milliseconds kDeadline{5000};
  static constexpr std::chrono::milliseconds kTick{100};

  explicit ConnectionDeadline(size_t room, std::chrono::milliseconds deadline = kDeadline);
  ~ConnectionDeadline();  // stops the thread (within kTick)
  ConnectionDeadline(const ConnectionDeadline &) = delete;
  ConnectionDeadline &operator=(const ConnectionDeadline &) = delete;

  // The server's events for the connection `key` (its handle) on socket `fd`.
  void started(const void *key, int fd);
  void answering(const void *key);  // a whole request came: answered, not cut
  void answered(const void *key);   // its answer is sent: the clock starts again
  void closed(const void *key);

  // Connections shut down so far for being past the deadline.
  size_t cut() const;

 private:
  struct Connection {
    int fd = -1;
    std::chrono::steady_clock::time_point since;
    bool answering = false;
    bool shut = false;
  };
  void watch();
  void cut(Connection &c);
  void make_room(const void *newcomer);

  const size_t room_;
  const std::chrono::milliseconds deadline_;
  size_t open_ = 0;  // not yet cut
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  size_t cut_ = 0;
  std::map<const void *, Connection> connections_;
  std::thread thread_;
};

}  // namespace kpp
