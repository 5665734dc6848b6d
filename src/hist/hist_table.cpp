#include "src/hist/hist_table.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include "src/definition/definition_text.h"
#include "src/util/json_string.h"

namespace kpp {

namespace {

bool asked_comm(const HistKey &key) { return key.field == "comm"; }

// A key's value for JSON: a number where the kernel printed one.
std::string json_value(const HistKey &key, const std::string &value) {
  if (key.string || asked_comm(key) || key.kind == HistKey::Kind::Execname) return json_quote(value);
  if (key.kind == HistKey::Kind::Log2) {
    // "~ 2^3": the kernel rounds a value up to a power of two, so the bucket
    // is (4, 8]; JSON gives the kernel's 2^n, its upper bound.
    size_t caret = value.find('^');
    if (caret != std::string::npos) {
      unsigned shift = static_cast<unsigned>(std::strtoul(value.c_str() + caret + 1, nullptr, 10));
      if (shift < 64) return std::to_string(uint64_t{1} << shift);
    }
    return json_quote(value);
  }
  if (key.kind == HistKey::Kind::Plain && !value.empty() &&
      value.find_first_not_of("0123456789-") == std::string::npos)
    return value;
  return json_quote(value);
}

// Strings and comms as printable text: a newline or an escape sequence in a
// key cannot break the table or reach the terminal.
std::string text_value(const HistKey &key, const std::string &value, uint64_t pid) {
  if (key.string || asked_comm(key)) return printable(value);
  if (key.kind == HistKey::Kind::Execname) return printable(value) + " [" + std::to_string(pid) + "]";
  if (key.kind == HistKey::Kind::Log2) {
    size_t caret = value.find('^');
    if (caret != std::string::npos) {
      unsigned shift = static_cast<unsigned>(std::strtoul(value.c_str() + caret + 1, nullptr, 10));
      if (shift < 64) {
        uint64_t hi = uint64_t{1} << shift;
        return "(" + std::to_string(hi >> 1) + ", " + std::to_string(hi) + "]";
      }
    }
  }
  return value;
}

}  // namespace

void sort_hist_rows(std::vector<HistRow> &rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const HistRow &a, const HistRow &b) {
    if (a.hits != b.hits) return a.hits > b.hits;
    return a.keys < b.keys;
  });
}

void merge_by_comm(HistTable &table, const HistRequest &request) {
  bool any = std::any_of(request.keys.begin(), request.keys.end(), asked_comm);
  if (!any) return;
  std::map<std::vector<std::string>, HistRow> merged;  // keys and pids
  for (HistRow &row : table.rows) {
    for (size_t i = 0; i < row.keys.size(); ++i)
      if (asked_comm(request.keys[i])) row.pids[i] = 0;
    std::vector<std::string> merged_key = row.keys;
    for (size_t i = 0; i < row.keys.size(); ++i) merged_key[i] += '\0' + std::to_string(row.pids[i]);
    auto [it, fresh] = merged.try_emplace(merged_key, row);
    if (fresh) continue;
    it->second.hits += row.hits;
    for (size_t s = 0; s < row.sums.size(); ++s) it->second.sums[s] += row.sums[s];
  }
  table.rows.clear();
  for (auto &[keys, row] : merged) table.rows.push_back(std::move(row));
  sort_hist_rows(table.rows);
}

std::string format_hist_text(const HistTable &table, const HistRequest &request) {
  std::vector<std::string> header;
  for (const HistKey &k : request.keys) header.push_back(k.column());
  header.push_back("hits");
  for (const std::string &s : request.sums) header.push_back("sum(" + s + ")");
  std::vector<std::vector<std::string>> cells{header};
  for (const HistRow &row : table.rows) {
    std::vector<std::string> c;
    for (size_t i = 0; i < row.keys.size(); ++i) c.push_back(text_value(request.keys[i], row.keys[i], row.pids[i]));
    c.push_back(std::to_string(row.hits));
    for (uint64_t s : row.sums) c.push_back(std::to_string(s));
    cells.push_back(std::move(c));
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto &c : cells)
    for (size_t i = 0; i < c.size(); ++i) width[i] = std::max(width[i], c[i].size());
  std::string out;
  size_t nkeys = request.keys.size();
  for (const auto &c : cells) {
    std::string line;
    for (size_t i = 0; i < c.size(); ++i) {
      std::string pad(width[i] - c[i].size(), ' ');
      // Keys left-aligned, numbers right-aligned, as a table of counts reads.
      line += (i ? "  " : "") + (i < nkeys ? c[i] + pad : pad + c[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (table.dropped)
    out += "dropped: " + std::to_string(table.dropped) + " events the kernel's table had no room for\n";
  return out;
}

std::string format_hist_json(const HistTable &table, const HistRequest &request) {
  std::string out;
  for (const HistRow &row : table.rows) {
    std::string line = "{\"key\":{";
    for (size_t i = 0; i < row.keys.size(); ++i)
      line += (i ? "," : "") + json_quote(request.keys[i].column()) + ":" + json_value(request.keys[i], row.keys[i]);
    line += "},\"hits\":" + std::to_string(row.hits);
    if (!row.sums.empty()) {
      line += ",\"sum\":{";
      for (size_t s = 0; s < row.sums.size(); ++s)
        line += (s ? "," : "") + json_quote(request.sums[s]) + ":" + std::to_string(row.sums[s]);
      line += "}";
    }
    out += line + "}\n";
  }
  return out;
}

}  // namespace kpp
