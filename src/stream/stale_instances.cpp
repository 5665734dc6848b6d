#include "src/stream/stale_instances.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <set>
#include <string_view>

#include "src/stream/instance_triggers.h"
#include "src/tracefs/tracefs_cxx.h"
#include "util/strings.h"
#include "util/tool_pid.h"

namespace kpp {

namespace {

// The digits of `text` as a number (no sign, no leading zero, at most `max_digits`).
std::optional<uint64_t> plain_number(std::string_view text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits || text[0] == '0') return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}


// "<pid>" or "<pid><ns_marker><inode>" -> the owner.
std::optional<InstanceOwner> owner_of(std::string_view rest, std::string_view ns_marker) {
  InstanceOwner owner;
  if (size_t ns = rest.find(ns_marker); ns != std::string_view::npos) {
    auto inode = plain_number(rest.substr(ns + ns_marker.size()), 20);
    if (!inode) return std::nullopt;
    owner.pid_namespace = *inode;
    rest = rest.substr(0, ns);
  }
  auto pid = plain_number(rest, 9);
  if (!pid) return std::nullopt;
  owner.pid = static_cast<int>(*pid);
  return owner;
}

std::string owner_text(InstanceOwner owner, const char *ns_marker) {
  std::string text = std::to_string(owner.pid);
  if (owner.pid_namespace != kInitialPidNamespace) text += ns_marker + std::to_string(owner.pid_namespace);
  return text;
}

}  // namespace

std::optional<InstanceOwner> instance_owner(const std::string &name) {
  std::string_view prefix = kInstancePrefix, rest = name;
  if (!rest.starts_with(prefix)) return std::nullopt;
  return owner_of(rest.substr(prefix.size()), "-ns");
}

std::optional<InstanceOwner> synthetic_event_owner(const std::string &name) {
  std::string_view prefix = kSyntheticPrefix, rest = name;
  if (!rest.starts_with(prefix)) return std::nullopt;
  return owner_of(rest.substr(prefix.size()), "_ns");
}

int instance_owner_pid(const std::string &name) {
  auto owner = instance_owner(name);
  return owner ? owner->pid : 0;
}

uint64_t own_pid_namespace() {
  struct stat st {};
  return stat("/proc/self/ns/pid", &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

std::string instance_name_of(InstanceOwner owner) { return kInstancePrefix + owner_text(owner, "-ns"); }

std::string synthetic_event_name_of(InstanceOwner owner) { return kSyntheticPrefix + owner_text(owner, "_ns"); }

namespace {

InstanceOwner this_run() {
  // An unknown namespace (no /proc) is named as the initial one: the name
  // perf-era scripts and our tests look for.
  uint64_t ns = own_pid_namespace();
  return {tool_pid(), ns == 0 ? kInitialPidNamespace : ns};
}

}  // namespace

std::string this_runs_instance_name() { return instance_name_of(this_run()); }

std::string this_runs_synthetic_event_name() { return synthetic_event_name_of(this_run()); }

namespace {

// Disables and removes instance `name`: the errno text when it cannot.
std::optional<std::string> destroy_instance(const Tracefs &tracefs, const std::string &name) {
  tracefs_instance *inst = tracefs_instance_alloc(tracefs.root().c_str(), name.c_str());
  if (!inst) return std::string(std::strerror(errno));
  // Disable first: a probe stays enabled (and undeletable) until then.
  (void)tracefs_instance_file_write(inst, "events/enable", "0");
  int rc = tracefs_instance_destroy(inst);
  int err = errno;
  tracefs_instance_free(inst);
  if (rc == 0) return std::nullopt;
  return std::string(std::strerror(err));
}

bool is_stale(const InstanceOwner &owner, uint64_t own_namespace) {
  // Another namespace's pid says nothing about the processes we can see.
  if (owner.pid_namespace != own_namespace || owner.pid == tool_pid()) return false;
  return ::kill(owner.pid, 0) != 0 && errno == ESRCH;  // alive (or not ours to signal): keep
}

// The names in synthetic_events ("kpp_lat_1\tu64 lat_us": the name first).
std::vector<std::string> synthetic_event_names(const Tracefs &tracefs) {
  std::vector<std::string> names;
  std::string text;
  if (!tracefs.read_capped("synthetic_events", 1u << 20, text)) return names;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    size_t word = line.find_first_of(" \t");
    if (!line.empty() && line[0] != '#') names.push_back(line.substr(0, word));
  }
  return names;
}

// "!NAME" to synthetic_events: the errno text when the kernel refuses.
std::optional<std::string> delete_synthetic_event(const Tracefs &tracefs, const std::string &name) {
  if (int err = tracefs.append("synthetic_events", "!" + name)) return std::string(std::strerror(err));
  return std::nullopt;
}

// What one run left, removed in the order the kernel needs: the instance's
// triggers, the run's synthetic event (a trigger fired it), the instance.
// `whose` ends each note (", left by ..."); none: the run's own ("its").
std::vector<std::string> remove_leftovers(const Tracefs &tracefs, const InstanceOwner &owner,
                                          bool has_instance, bool has_synthetic, const std::string &whose) {
  std::vector<std::string> notes;
  std::string its = whose.empty() ? "its " : "";
  std::string instance = its + "tracefs instance " + instance_name_of(owner),
              synthetic = its + "synthetic event " + synthetic_event_name_of(owner);
  ClearedTriggers triggers;
  if (has_instance) triggers = clear_instance_triggers(tracefs, instance_name_of(owner));
  if (has_synthetic) {
    if (auto why = delete_synthetic_event(tracefs, synthetic_event_name_of(owner)))
      notes.push_back("cannot remove " + synthetic + whose + ": " + *why);
    else
      notes.push_back("removed " + synthetic + whose);
  }
  if (!has_instance) return notes;
  std::string held = triggers.events.empty() ? "" : " and the triggers on " + join(triggers.events);
  if (auto why = destroy_instance(tracefs, instance_name_of(owner))) {
    std::string kept = triggers.left.empty() ? "" : " (the kernel keeps the triggers on " + join(triggers.left) + ")";
    notes.push_back("cannot remove " + instance + whose + ": " + *why + kept);
  } else {
    notes.push_back("removed " + instance + held + whose);
  }
  return notes;
}

}  // namespace

std::vector<std::string> remove_stale_instances(const Tracefs &tracefs) {
  std::vector<std::string> notes;
  uint64_t own_namespace = own_pid_namespace();
  std::set<std::pair<int, uint64_t>> instances, synthetics, owners;
  for (const std::string &name : tracefs.entries("instances", SIZE_MAX))
    if (auto owner = instance_owner(name); owner && instance_name_of(*owner) == name)
      if (is_stale(*owner, own_namespace)) instances.insert({owner->pid, owner->pid_namespace});
  for (const std::string &name : synthetic_event_names(tracefs))
    if (auto owner = synthetic_event_owner(name); owner && synthetic_event_name_of(*owner) == name)
      if (is_stale(*owner, own_namespace)) synthetics.insert({owner->pid, owner->pid_namespace});
  owners.insert(instances.begin(), instances.end());
  owners.insert(synthetics.begin(), synthetics.end());
  for (const auto &key : owners) {
    InstanceOwner owner{key.first, key.second};
    std::string whose = ", left by kprobe-probe process " + std::to_string(owner.pid) + " that no longer runs";
    for (std::string &note : remove_leftovers(tracefs, owner, instances.count(key) > 0, synthetics.count(key) > 0, whose))
      notes.push_back(std::move(note));
  }
  return notes;
}

std::vector<std::string> remove_instance_of_this_run(const Tracefs &tracefs) {
  InstanceOwner owner = this_run();
  bool instance = tracefs.exists("instances/" + instance_name_of(owner));
  std::vector<std::string> names = synthetic_event_names(tracefs);
  bool synthetic = std::find(names.begin(), names.end(), synthetic_event_name_of(owner)) != names.end();
  if (!instance && !synthetic) return {};
  return remove_leftovers(tracefs, owner, instance, synthetic, "");
}

}  // namespace kpp
