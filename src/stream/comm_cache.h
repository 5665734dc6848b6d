// pid -> comm for decoded events, without re-reading tracefs per event.
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>

namespace kpp {

class CommCache {
 public:
  // `tracing_dir` empty: no saved_cmdlines fallback (unit tests).
  explicit CommCache(std::string tracing_dir = {});

  // The comm of `pid`: cached; else /proc/<pid>/comm; else the kernel's
  // saved_cmdlines (re-read at most once a second); else "<...>".
  // pid 0 is "<idle>". The reference stays valid until the next call.
  const std::string &comm(int pid);

  // Seeds or overrides an entry (tests, or a caller that knows better).
  void set(int pid, std::string comm);

 private:
  struct Entry {
    std::string comm;
    bool known = false;
    std::chrono::steady_clock::time_point checked;
  };
  bool lookup_proc(int pid, std::string &out) const;
  void reload_saved_cmdlines();

  std::string tracing_dir_;
  std::unordered_map<int, Entry> cache_;
  std::unordered_map<int, std::string> saved_;
  std::chrono::steady_clock::time_point saved_loaded_{};
};

}  // namespace kpp
