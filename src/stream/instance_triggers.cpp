#include "src/stream/instance_triggers.h"


namespace kpp {

namespace {

constexpr size_t kMaxEvents = 65536;
constexpr size_t kMaxListBytes = 16u << 20;
constexpr size_t kMaxTriggerBytes = 64u << 10;
constexpr int kPasses = 4;

bool has_triggers(const Tracefs &tracefs, const std::string &path) {
  std::string text;
  if (!tracefs.read_capped(path, kMaxTriggerBytes, text)) return false;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at && text[at] != '#') return true;
    at = end + 1;
  }
  return false;
}

std::string event_name(const std::string &dir) {
  std::string name = dir;
  name[name.find('/')] = ':';
  return name;
}

}  // namespace

std::vector<std::string> dynamic_event_dirs(const Tracefs &tracefs, size_t max) {
  std::vector<std::string> events;
  std::string text;
  if (!tracefs.read_capped("dynamic_events", kMaxListBytes, text)) return events;
  size_t at = 0;
  while (at < text.size() && events.size() < max) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    // "p:probe/vfs_read vfs_read ...", "s:synthetic/kpp_lat_1\tu64 lat_us" (a tab).
    size_t colon = line.find(':'), space = line.find_first_of(" \t");
    if (colon == std::string::npos || (space != std::string::npos && space < colon)) continue;
    std::string name = line.substr(colon + 1, space == std::string::npos ? std::string::npos : space - colon - 1);
    size_t slash = name.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == name.size()) continue;
    if (name.find("..") != std::string::npos || name.find('/', slash + 1) != std::string::npos) continue;
    events.push_back(name);
  }
  return events;
}

ClearedTriggers clear_instance_triggers(const Tracefs &tracefs, const std::string &instance) {
  ClearedTriggers out;
  std::string events_dir = "instances/" + instance + "/events/";
  std::vector<std::string> pending;
  for (const std::string &e : dynamic_event_dirs(tracefs, kMaxEvents))
    if (has_triggers(tracefs, events_dir + e + "/trigger")) pending.push_back(e);
  for (int pass = 0; pass < kPasses && !pending.empty(); ++pass) {
    for (const std::string &e : pending) (void)tracefs.write(events_dir + e + "/trigger", "");
    std::vector<std::string> kept;
    for (const std::string &e : pending) {
      if (has_triggers(tracefs, events_dir + e + "/trigger")) kept.push_back(e);
      else out.events.push_back(event_name(e));
    }
    if (kept.size() == pending.size()) break;  // no progress: the kernel keeps them
    pending = std::move(kept);
  }
  for (const std::string &e : pending) out.left.push_back(event_name(e));
  return out;
}

}  // namespace kpp
