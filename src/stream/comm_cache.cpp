#include "src/stream/comm_cache.h"

#include <fstream>
#include <sstream>

#include "src/tracefs/tracefs.h"

namespace kpp {

namespace {
constexpr auto kRetry = std::chrono::seconds(1);
const std::string kUnknown = "<...>";
}  // namespace

CommCache::CommCache(std::string tracing_dir) : tracing_dir_(std::move(tracing_dir)) {
  cache_[0] = Entry{"<idle>", true, {}};
}

void CommCache::set(int pid, std::string comm) { cache_[pid] = Entry{std::move(comm), true, {}}; }

bool CommCache::lookup_proc(int pid, std::string &out) const {
  // /proc/<tid>/comm also works for threads that are not group leaders.
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  if (!in || !std::getline(in, out) || out.empty()) return false;
  return true;
}

void CommCache::reload_saved_cmdlines() {
  auto now = std::chrono::steady_clock::now();
  if (tracing_dir_.empty() || now - saved_loaded_ < kRetry) return;
  saved_loaded_ = now;
  std::istringstream in(Tracefs(tracing_dir_).read("saved_cmdlines"));
  std::string line;
  while (std::getline(in, line)) {
    auto sp = line.find(' ');
    if (sp == std::string::npos) continue;
    saved_[std::stoi(line.substr(0, sp))] = line.substr(sp + 1);
  }
}

const std::string &CommCache::comm(int pid) {
  auto now = std::chrono::steady_clock::now();
  auto it = cache_.find(pid);
  if (it != cache_.end() && (it->second.known || now - it->second.checked < kRetry))
    return it->second.comm;
  Entry e;
  e.checked = now;
  if (lookup_proc(pid, e.comm)) {
    e.known = true;
  } else {
    reload_saved_cmdlines();
    if (auto s = saved_.find(pid); s != saved_.end()) {
      e.comm = s->second;
      e.known = true;
    } else {
      e.comm = kUnknown;
    }
  }
  return cache_[pid] = std::move(e), cache_[pid].comm;
}

}  // namespace kpp
