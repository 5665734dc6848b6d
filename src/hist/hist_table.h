// The kernel's histogram (an event's `hist` file) read back into rows, and
// printed as a table sorted by count or as JSON lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/hist/hist_request.h"
#include "util/result.h"

namespace kpp {

struct HistRow {
  // One value per key of the request, in order, as the kernel printed it
  // (trimmed): "dd [ 175]" for execname, "~ 2^3" for log2, "7", "0x1f".
  std::vector<std::string> keys;
  uint64_t hits = 0;
  std::vector<uint64_t> sums;  // one per HistRequest::sums
};

struct HistTable {
  std::vector<HistRow> rows;   // sorted by hits, descending; ties by key text
  uint64_t total_hits = 0;     // the kernel's "Hits:" (all rows, before merging)
  uint64_t dropped = 0;        // events the kernel could not count: the table was full
};

// Parses a `hist` file of the trigger hist_trigger(request) made. Rows whose
// shape does not match the request are an error naming the line: the text
// comes from the kernel, but a kernel of another version may print more.
Result<HistTable> parse_hist(const std::string &text, const HistRequest &request);

// For keys asked --by comm (the kernel keys them by pid, .execname): one row
// per process name, counts and sums added up.
void merge_by_comm(HistTable &table, const HistRequest &request);

// The table as text: a header of key names, hits and sums; one row a line.
std::string format_hist_text(const HistTable &table, const HistRequest &request);
// One JSON object a line: {"key":{"comm":"dd"},"hits":51,"sum":{"count":357}}.
std::string format_hist_json(const HistTable &table, const HistRequest &request);

}  // namespace kpp
