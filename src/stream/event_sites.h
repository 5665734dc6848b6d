// EventSites: which probe site fired, for every event: its address (the
// event's __probe_ip) and its site in source terms, "walk:5@prog.c" --
// function+line, as `-l` shows a probe -- told apart between the copies
// of one event (inlined copies, several addresses of a line).
//
// The table is filled by the caller from the definitions (it knows the
// programs' debug info); an event with one site needs nothing more. For an
// event with several, the copy is found from the address: a uprobe's ip is
// an address in the traced process, turned into a file offset through
// /proc/PID/maps (read once per process, while it runs); a kprobe's ip is
// matched against the sites' kernel addresses when they are known.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "event/event.h"
#include "src/stream/process_maps.h"

namespace kpp {

struct ProbeSite {
  std::string path;     // uprobes: the program; empty for kprobes
  uint64_t offset = 0;  // uprobes: file offset; kprobes: the address when known, else 0
  std::string text;     // "walk:5@prog.c"
};

class EventSites {
 public:
  // Adds a site of "group:event".
  void add(const std::string &event, ProbeSite site);
  bool empty() const { return sites_.empty(); }

  // The site of `event` (by its name and probe_ip), or empty when unknown.
  const std::string &site_of(const Event &event);

 private:
  const std::vector<FileMapping> &maps_of(int pid);

  std::unordered_map<std::string, std::vector<ProbeSite>> sites_;
  std::unordered_map<int, std::vector<FileMapping>> maps_;  // per pid, read once
  std::string key_, none_;
};

}  // namespace kpp
