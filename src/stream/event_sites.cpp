#include "src/stream/event_sites.h"

namespace kpp {

void EventSites::add(const std::string &event, ProbeSite site) { sites_[event].push_back(std::move(site)); }

const std::vector<FileMapping> &EventSites::maps_of(int pid) {
  auto it = maps_.find(pid);
  if (it != maps_.end()) return it->second;
  if (maps_.size() > 4096) maps_.clear();  // bounded: many short-lived processes
  return maps_[pid] = read_process_maps(pid);
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
  for (const FileMapping &m : maps_of(event.pid)) {
    if (event.probe_ip < m.start || event.probe_ip >= m.end) continue;
    uint64_t offset = event.probe_ip - m.start + m.pgoff;
    for (const ProbeSite &s : sites)
      if (s.path == m.path && s.offset == offset) return s.text;
  }
  return none_;
}

}  // namespace kpp
