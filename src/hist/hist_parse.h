// The text of an event's `hist` file read back as rows, the kernel's text
// taken as data and never as structure.
//
// The kernel prints (kernel/trace/trace_events_hist.c, the same in 6.1 and
// 6.12: hist_trigger_show, hist_trigger_print_key, hist_trigger_entry_print):
//
//   # event histogram\n#\n# trigger info: TRIGGER [active]\n#\n\n
//   { KEY: VALUE, KEY: VALUE } hitcount: %10llu  SUM: %10llu\n     one a row
//   \nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n
//
// a key VALUE as "%10llu" (a number), "%llx" (.hex), "[%llx] %-45ps" (.sym),
// "~ 2^%-2llu" (.log2), "%-16s[%10llu]" (.execname: a comm of at most 15
// bytes, then the pid) and "%-50s" for a string: its bytes as they are, any
// but NUL, newlines included, at most 255 (the key's room). Only a string can
// hold text that reads as structure ("} hitcount: 1\n{ name: ..."): it is
// read at least 50 bytes long and ends at the first place the rest of the row
// reads as the kernel prints it, so a forged row can only add rows, never
// join two; then the rows must be as many as the kernel's Entries and their
// hitcounts add up to its Hits, else the table is refused, never shown. With
// two or more string keys, a string that holds a key's or a row's separator
// is refused too (one string could swallow the other's end).
#pragma once

#include <string>

#include "src/hist/hist_table.h"

namespace kpp {

enum class HistSnapshot {
  Still,  // the trigger was paused before the read: hitcounts add up to Hits exactly
  Live,   // counting on while the kernel printed: Hits may have grown past the rows
};

// Parses a `hist` file of the trigger hist_trigger(request) made (one
// histogram on the event). Errors name what did not read as the kernel prints
// it, and where.
Result<HistTable> parse_hist(const std::string &text, const HistRequest &request,
                             HistSnapshot snapshot = HistSnapshot::Still);

}  // namespace kpp
