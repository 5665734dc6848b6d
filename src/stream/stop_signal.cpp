#include "src/stream/stop_signal.h"

#include <csignal>

namespace kpp {

namespace {
volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_signal = 0;
int g_depth = 0;  // scopes alive; only the outermost installs and restores
struct sigaction g_old_int, g_old_term, g_old_hup, g_old_pipe;

void on_signal(int sig) {
  g_signal = sig;
  g_stop = 1;
}
}  // namespace

StopSignalScope::StopSignalScope() {
  if (g_depth++ > 0) return;  // an outer scope (the command's) holds the handlers and any stop already asked
  clear_stop();
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR at once
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGHUP, &sa, &g_old_hup);  // a closed ssh session: stop and clean up
  sigaction(SIGPIPE, &sa, &g_old_pipe);  // `trace | head`: stop and clean up, do not die
}

StopSignalScope::~StopSignalScope() {
  if (--g_depth > 0) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGHUP, &g_old_hup, nullptr);
  sigaction(SIGPIPE, &g_old_pipe, nullptr);
}

bool stop_requested() { return g_stop != 0; }
int stop_signal() { return g_signal; }
void request_stop() { g_stop = 1; }
void clear_stop() {
  g_stop = 0;
  g_signal = 0;
}

}  // namespace kpp
