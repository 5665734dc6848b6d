#include "src/stream/event_sites.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace kpp {

void EventSites::add(const std::string &event, ProbeSite site) { sites_[event].push_back(std::move(site)); }

const std::vector<EventSites::Mapping> &EventSites::maps_of(int pid) {
  auto it = maps_.find(pid);
  if (it != maps_.end()) return it->second;
  if (maps_.size() > 4096) maps_.clear();  // bounded: many short-lived processes
  std::vector<Mapping> &out = maps_[pid];
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(in, line);) {
    // "start-end perms pgoff dev inode path"
    std::istringstream words(line);
    std::string range, perms, pgoff, dev, inode, path;
    if (!(words >> range >> perms >> pgoff >> dev >> inode)) continue;
    std::getline(words >> std::ws, path);
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    Mapping m{};
    if (std::sscanf(range.c_str(), "%lx-%lx", &m.start, &m.end) != 2) continue;
    m.pgoff = std::stoull(pgoff, nullptr, 16);
    m.path = path;
    out.push_back(std::move(m));
  }
  return out;
}

const std::string &EventSites::site_of(const Event &event) {
  if (sites_.empty()) return none_;
  key_.assign(event.system).append(1, ':').append(event.name);
  auto it = sites_.find(key_);
  if (it == sites_.end()) return none_;
  const std::vector<ProbeSite> &sites = it->second;
  if (sites.size() == 1) return sites.front().text;
  if (!event.probe_ip) return none_;
  for (const ProbeSite &s : sites)
    if (s.path.empty() && s.offset == event.probe_ip) return s.text;
  for (const Mapping &m : maps_of(event.pid)) {
    if (event.probe_ip < m.start || event.probe_ip >= m.end) continue;
    uint64_t offset = event.probe_ip - m.start + m.pgoff;
    for (const ProbeSite &s : sites)
      if (s.path == m.path && s.offset == offset) return s.text;
  }
  return none_;
}

}  // namespace kpp
