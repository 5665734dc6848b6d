// What `kprobe-probe hist` asks the kernel for, and the hist trigger that says it.
//
// The kernel aggregates in place (CONFIG_HIST_TRIGGERS): a trigger
// "hist:keys=...:vals=...:sort=hitcount.descending" on an event counts and sums
// per key without a single event reaching user space. This file only builds and
// checks the trigger text; writing it is hist_session's job.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kpp {

// One --by: a field of the event and how the kernel should bucket or show it.
struct HistKey {
  enum class Kind { Plain, Log2, Hex, Sym, Execname };
  std::string field;          // as the user wrote it ("comm", "count", "common_pid")
  Kind kind = Kind::Plain;
  // The field is a string (its format says char[N], __data_loc char[], char *):
  // the kernel prints its bytes as they are, padded to 50 (mark_string_keys).
  bool string = false;
  // The key as the trigger spells it: "count.log2", "common_pid.execname".
  std::string trigger_key() const;
  // The name this key has in our table and JSON ("count.log2", "comm").
  std::string column() const;
  // The name the kernel prints for it in the hist file ("count", "common_pid").
  std::string printed_name() const;
};

struct HistRequest {
  std::vector<HistKey> keys;      // --by, in order; at least one
  std::vector<std::string> sums;  // --sum FIELD
  std::string filter;             // --filter EXPR (the kernel's filter syntax)
};

// Parses "FIELD[.log2|.hex|.sym|.execname]". Field names are C identifiers
// (what the kernel's format files have): anything else never reaches tracefs.
Result<HistKey> parse_hist_key(const std::string &text);

// What to use for stacks instead: the kernel's hist key of a stack
// (`stacktrace`) holds kernel stacks only, and a uprobe's user stack is
// unwound in user space (--by stacktrace and hist --stack say so).
inline constexpr const char *kHistStackAlternative =
    "count the stacks (user stacks unwound from DWARF) with 'kprobe-probe trace -e GROUP:EVENT --stack --folded': "
    "one line per stack with its count, a flame graph's input";
// Checks a --sum field name the same way.
Status check_hist_field(const std::string &option, const std::string &field);
// A --filter must be one line, its parentheses balanced and its quotes closed
// (src/stream/filter_expression.h).
Status check_hist_filter(const std::string &filter);

// "hist:keys=K1,K2:vals=hitcount,S1:sort=hitcount.descending:size=N [if FILTER]".
// The same text with a leading '!' removes the trigger.
std::string hist_trigger(const HistRequest &request);
// The command that pauses the trigger `trigger` (as hist_trigger() wrote it):
// its text with ":pause" before the filter.
std::string hist_pause_trigger(const std::string &trigger);

// The request back from a trigger line as the kernel lists it in a trigger
// file ("hist:keys=common_pid.execname:vals=hitcount,count:sort=...:size=N
// if FILTER [active]"): nullopt for a line that is not a plain counting
// histogram (variables, actions, other commands: the plumbing of --latency).
std::optional<HistRequest> parse_hist_trigger(const std::string &line);

}  // namespace kpp
