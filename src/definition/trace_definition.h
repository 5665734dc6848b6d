// TraceDefinition: a probe as the kernel is given it, one line of
// kprobe_events or uprobe_events:
//
//   p[:[GRP/]EVENT] [MOD:]SYM[+offs]|MEMADDR [NAME=FETCHARG[:TYPE] ...]
//   r[MAXACTIVE][:[GRP/]EVENT] [MOD:]SYM[+0] [NAME=FETCHARG[:TYPE] ...]
//   p[:[GRP/]EVENT] PATH:OFFSET[(REF_CTR_OFFSET)][%return] [NAME=FETCHARG[:TYPE] ...]    (uprobes)
//
// format_definition() and parse_definition() round-trip, so what the kernel
// lists can be read back (the kernel's own listing uses this same syntax).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/value_fixup.h"

namespace kpp {

struct FetchArg {
  std::string name;   // field name in the event
  std::string fetch;  // "%di", "+8(%di)", "@+0x4010", "$retval", "$comm", "\\7"
  std::string type;   // "u64", "string", "b3@2/32", ...; may be empty
  // Read at the entry of the probed function, not at the probe: the value a
  // register had on entry (DW_OP_entry_value). The builder moves such args
  // to a companion probe; a kernel definition never carries this flag.
  bool at_entry = false;
  // What our decoder does to the fetched value (a signed bitfield, a value
  // DWARF computes with an addition); written into the field name.
  ValueFixup fixup = {};
  bool operator==(const FetchArg &) const = default;
};

struct TraceDefinition {
  enum class Kind { Kprobe, Uprobe };
  Kind kind = Kind::Kprobe;
  bool is_return = false;
  std::optional<unsigned> maxactive;  // kretprobes only
  // Kprobe only: an fprobe event ("f:GROUP/EVENT FUNC[%return] ARGS", at
  // offset 0, arguments as $argN; see fprobe.h) instead of a kprobe.
  bool fprobe = false;
  std::string group;
  std::string event;
  // Kprobe: "[MOD:]SYM[+offs]" or an address; Uprobe: PATH and OFFSET.
  std::string symbol;
  uint64_t offset = 0;
  std::string path;
  // Uprobes: the file offset of a reference counter (an SDT marker's
  // semaphore) that the kernel raises while the probe is enabled.
  std::optional<uint64_t> ref_ctr_offset;
  std::vector<FetchArg> args;
  bool operator==(const TraceDefinition &) const = default;

  std::string qualified_name() const { return group + ":" + event; }
};

// The definition line, as `-D` prints it and kprobe_events/uprobe_events take it.
std::string format_definition(const TraceDefinition &def);

// Reads one line of kprobe_events/uprobe_events back. Lines the kernel lists
// use the same syntax, with the group always present.
Result<TraceDefinition> parse_definition(std::string_view line);

// The fetch-arg part alone ("name=+8(%di):string"), as libtracefs takes it.
std::string format_fetch_args(const std::vector<FetchArg> &args);

}  // namespace kpp
