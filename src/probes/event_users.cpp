#include "src/probes/event_users.h"

#include <optional>
#include <vector>

#include "src/stream/stale_instances.h"
#include "util/strings.h"

namespace kpp {

namespace {

constexpr size_t kMaxInstances = 256;

struct Use {
  std::string events_dir;  // ".../instances/NAME/events/G/E" or the top level's
  std::string where;       // "instance NAME", "the top level"
  bool enabled = false;
  std::string trigger;     // the first trigger line, if any
  int owner = 0;           // a kprobe-probe instance's pid
};

// `events_dir`: relative to the root ("instances/NAME/events/G/E").
std::optional<Use> use_in(const Tracefs &tracefs, const std::string &events_dir, const std::string &where) {
  Use use{tracefs.path(events_dir), where};
  std::string text;
  // "1", or "0*"/"1*" when a trigger soft-enables it.
  if (tracefs.read_capped(events_dir + "/enable", 64, text)) use.enabled = !text.empty() && text[0] == '1';
  if (tracefs.read_capped(events_dir + "/trigger", 4096, text))
    for (size_t at = 0; at < text.size();) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      if (end > at && text[at] != '#') {
        use.trigger = text.substr(at, end - at);
        break;
      }
      at = end + 1;
    }
  if (!use.enabled && use.trigger.empty()) return std::nullopt;
  return use;
}

std::string advice(const Use &use) {
  if (use.owner)
    return "kprobe-probe process " + std::to_string(use.owner) + " uses it (" + use.where + "): end that run first";
  if (!use.trigger.empty())
    return "remove the trigger: echo '!" + use.trigger.substr(0, use.trigger.find(" [")) + "' >> " + use.events_dir +
           "/trigger (a histogram whose variables another uses goes after that one)";
  return "disable it: echo 0 > " + use.events_dir + "/enable";
}

}  // namespace

Error busy_event_error(const Tracefs &tracefs, const std::string &group, const std::string &event) {
  std::string name = group + ":" + event, path = "events/" + group + "/" + event;
  std::vector<Use> uses;
  if (auto top = use_in(tracefs, path, "the top level")) uses.push_back(*top);
  for (const std::string &inst : tracefs.entries("instances", kMaxInstances))
    if (auto use = use_in(tracefs, "instances/" + inst + "/" + path, "instance " + inst)) {
      use->owner = instance_owner_pid(inst);
      uses.push_back(*use);
    }
  if (uses.empty())
    return Error("cannot remove " + name + ": the kernel says it is in use, and no instance enables it or has a "
                     "trigger on it",
                 "another event may use it (a synthetic event's trigger, an eprobe), or a perf or BPF program");
  std::vector<std::string> what;
  for (const Use &u : uses)
    what.push_back(u.trigger.empty() ? "enabled in " + u.where
                                     : "a trigger in " + u.where + " is on it (" + u.trigger + ")");
  return Error("cannot remove " + name + ": " + join(what, "; "), advice(uses.front()));
}

}  // namespace kpp
