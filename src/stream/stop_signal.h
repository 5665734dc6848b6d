// Stopping a session from SIGINT/SIGTERM/SIGHUP/SIGPIPE without doing work in the handler.
//
// The handlers installed here only set a flag (async-signal-safe); the poll
// loop sees the flag (the signal also interrupts its poll() with EINTR) and
// returns, so cleanup runs on the normal path: events disabled, instance
// removed, trace.dat finalized.
#pragma once

namespace kpp {

// RAII: while alive, SIGINT, SIGTERM, SIGHUP and SIGPIPE set the stop flag instead of killing
// the process (handlers without SA_RESTART, so blocking calls return EINTR).
// The previous handlers are restored on destruction. Clears the flag when
// installed. Scopes nest: an inner one (a Session's) leaves the outer one's
// handlers, and a stop the outer one already saw, as they are -- so a
// command can hold a scope from its first instruction and a signal during
// its setup still ends the session cleanly.
class StopSignalScope {
 public:
  StopSignalScope();
  ~StopSignalScope();
  StopSignalScope(const StopSignalScope &) = delete;
  StopSignalScope &operator=(const StopSignalScope &) = delete;
};

// True once one of those signals arrived (or request_stop() was called).
bool stop_requested();
// The signal number that requested the stop, 0 if none or request_stop().
int stop_signal();
// Sets the flag from normal code (tests, a UI quit key). Async-signal-safe.
void request_stop();
// Clears the flag.
void clear_stop();

}  // namespace kpp
