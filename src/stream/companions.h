// Companions: which events are entry-value companions of which probe.
//
// A probe that reads values its function had at entry (DW_OP_entry_value)
// is written as three events of one group (src/definition/probe_builder.h):
//
//   G:E          the probe itself
//   G:E__entry   a probe at the function's entry reading those values
//   G:E__exit    a return probe on that same entry site, popping the call
//
// This header is the one place that recognises companions (the -d of the
// planner's probes, the session's join, trace.dat replays: all ask it). An
// event is a companion only when the whole set is there as the builder
// writes it: the owner G:E exists, G:E__entry is an entry probe and
// G:E__exit a return probe, each with its mark as first field
// (util/companion_mark.h), both on the same site (when the sites are
// known) and in the owner's binary. A user's own "my__entry", or perf's SDT
// "function__entry", lacks the marks and that shape and is an ordinary
// event. The names alone never decide.
//
// Sources of the shapes: the definitions tracefs lists (uprobe_events,
// kprobe_events: sites known), the format files of a trace.dat or of
// tracefs (sites unknown: entry/return and names only), or a plan that
// says so itself (add()).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kpp {

// What the recogniser needs to know of one probe event.
struct ProbeShape {
  std::string system;  // group
  std::string event;
  bool is_return = false;
  std::string binary;  // uprobes: the path; kprobes: the module or "kernel"; empty: unknown
  std::string site;    // "PATH:0xOFFSET" / "SYM+OFFSET"; empty: unknown
  std::string first_field;  // the name of its first value field (a companion's mark)
};

enum class CompanionRole { None, Entry, Exit };

class Companions {
 public:
  // Recognises every companion set among `shapes` (see the file comment).
  static Companions recognise(const std::vector<ProbeShape> &shapes);

  // Declares `owner`'s companions ("group:event" each), as a plan knows them.
  void add(const std::string &owner, const std::string &entry, const std::string &exit);

  // The role of "system:event", and (for a companion) its owner's "group:event".
  CompanionRole role_of(const std::string &qualified) const;
  const std::string &owner_of(const std::string &qualified) const;
  // The companions of `owner` ("group:event"); empty when it has none.
  std::vector<std::string> of(const std::string &owner) const;

  bool empty() const { return roles_.empty(); }

 private:
  struct Role {
    CompanionRole role;
    std::string owner;
  };
  std::unordered_map<std::string, Role> roles_;             // companion -> role, owner
  std::unordered_map<std::string, std::vector<std::string>> by_owner_;
  std::string none_;
};

}  // namespace kpp
