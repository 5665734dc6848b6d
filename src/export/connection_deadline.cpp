#include "src/export/connection_deadline.h"

#include <sys/socket.h>

namespace kpp {

ConnectionDeadline::ConnectionDeadline(size_t room, std::chrono::milliseconds deadline)
    : room_(room), deadline_(deadline), thread_([this] { watch(); }) {}

ConnectionDeadline::~ConnectionDeadline() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ConnectionDeadline::started(const void *key, int fd) {
  std::lock_guard lock(mutex_);
  connections_[key] = Connection{fd, std::chrono::steady_clock::now(), false, false};
  ++open_;
  make_room(key);
}

void ConnectionDeadline::cut(Connection &c) {
  ::shutdown(c.fd, SHUT_RDWR);  // the library sees the end and closes it
  c.shut = true;
  --open_;
  ++cut_;
}

// Cuts the oldest idle connections (not `newcomer`) while more than room_ are open.
void ConnectionDeadline::make_room(const void *newcomer) {
  while (open_ > room_) {
    Connection *oldest = nullptr;
    for (auto &[key, c] : connections_)
      if (key != newcomer && !c.shut && !c.answering && (!oldest || c.since < oldest->since)) oldest = &c;
    if (!oldest) return;  // all are being answered
    cut(*oldest);
  }
}

void ConnectionDeadline::answering(const void *key) {
  std::lock_guard lock(mutex_);
  if (auto it = connections_.find(key); it != connections_.end()) it->second.answering = true;
}

void ConnectionDeadline::answered(const void *key) {
  std::lock_guard lock(mutex_);
  if (auto it = connections_.find(key); it != connections_.end()) {
    it->second.answering = false;
    it->second.since = std::chrono::steady_clock::now();
  }
}

// The library calls this before it closes the socket: under the lock, a
// descriptor is never shut down after its number may have been reused.
void ConnectionDeadline::closed(const void *key) {
  std::lock_guard lock(mutex_);
  auto it = connections_.find(key);
  if (it == connections_.end()) return;
  if (!it->second.shut) --open_;
  connections_.erase(it);
}

size_t ConnectionDeadline::cut() const {
  std::lock_guard lock(mutex_);
  return cut_;
}

void ConnectionDeadline::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kTick);
    auto now = std::chrono::steady_clock::now();
    for (auto &[key, c] : connections_)
      if (!c.answering && !c.shut && now - c.since >= deadline_) cut(c);
  }
}

}  // namespace kpp
