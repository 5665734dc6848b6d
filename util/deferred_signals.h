// Holds back SIGINT, SIGTERM and SIGHUP for a step that must not be cut in
// half (writing a set of probes and, on failure, removing them again): they
// stay pending while the scope lives and are delivered when it ends.
#pragma once

#include <signal.h>

namespace kpp {

class DeferredSignals {
 public:
  DeferredSignals() {
    sigset_t block;
    sigemptyset(&block);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
    sigprocmask(SIG_BLOCK, &block, &saved_);
  }
  ~DeferredSignals() { sigprocmask(SIG_SETMASK, &saved_, nullptr); }
  DeferredSignals(const DeferredSignals &) = delete;
  DeferredSignals &operator=(const DeferredSignals &) = delete;

  // The first of the held-back signals that arrived meanwhile, or 0.
  int pending() const {
    sigset_t set;
    sigpending(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
      if (sigismember(&set, sig) && !sigismember(&saved_, sig)) return sig;
    return 0;
  }

 private:
  sigset_t saved_;
};

}  // namespace kpp
