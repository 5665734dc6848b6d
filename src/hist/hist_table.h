// The kernel's histogram (an event's `hist` file) read back into rows, and
// printed as a table sorted by count or as JSON lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/hist/hist_request.h"
#include "src/util/result.h"

namespace kpp {

struct HistRow {
  // One value per key of the request, in order: a string's bytes as they are
  // (escaped when shown), the comm of an execname key, "~ 2^3" for log2, "7",
  // "1f" for hex, "[ffffffff8123] vfs_read" for sym.
  std::vector<std::string> keys;
  std::vector<uint64_t> pids;  // per key: the pid of an execname key, else 0
  uint64_t hits = 0;
  std::vector<uint64_t> sums;  // one per HistRequest::sums
};

struct HistTable {
  std::vector<HistRow> rows;   // sorted by hits, descending; ties by key text
  uint64_t total_hits = 0;     // the kernel's "Hits:" (all rows, before merging)
  uint64_t dropped = 0;        // events the kernel could not count: the table was full
};

// Sorts rows by hits, descending; ties by key text. (Reading a table:
// hist_parse.h.)
void sort_hist_rows(std::vector<HistRow> &rows);

// For keys asked --by comm (the kernel keys them by pid, .execname): one row
// per process name, counts and sums added up.
void merge_by_comm(HistTable &table, const HistRequest &request);

// The table as text: a header of key names, hits and sums; one row a line.
std::string format_hist_text(const HistTable &table, const HistRequest &request);
// One JSON object a line: {"key":{"comm":"dd"},"hits":51,"sum":{"count":357}}.
std::string format_hist_json(const HistTable &table, const HistRequest &request);

}  // namespace kpp
