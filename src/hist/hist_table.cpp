#include "src/hist/hist_table.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

#include "util/json_string.h"

namespace kpp {

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// "{ common_pid: dd [ 175], count: ~ 2^3 } hitcount: 3  count: 21" -> the row.
Result<HistRow> parse_row(const std::string &line, const HistRequest &request) {
  size_t close = line.rfind('}');
  if (close == std::string::npos) return Error("unexpected line in the kernel's histogram: " + line);
  std::string keys = line.substr(1, close - 1);
  std::string vals = line.substr(close + 1);
  HistRow row;
  // Each key starts at "NAME:"; its value runs to ", NEXT:" or the end.
  size_t pos = 0;
  for (size_t i = 0; i < request.keys.size(); ++i) {
    std::string name = request.keys[i].printed_name() + ":";
    size_t at = keys.find(name, pos);
    if (at == std::string::npos) return Error("the kernel's histogram has no key '" + name + "' in: " + line);
    size_t start = at + name.size();
    size_t end = keys.size();
    if (i + 1 < request.keys.size()) {
      std::string next = ", " + request.keys[i + 1].printed_name() + ":";
      size_t n = keys.find(next, start);
      if (n == std::string::npos) n = keys.find(request.keys[i + 1].printed_name() + ":", start);
      if (n == std::string::npos) return Error("unexpected key layout in the kernel's histogram: " + line);
      end = n;
    }
    row.keys.push_back(trim(keys.substr(start, end - start)));
    pos = end;
  }
  // Values: "hitcount: N" then "NAME: N" per sum, in the order asked.
  std::istringstream in(vals);
  std::string name;
  std::map<std::string, uint64_t> found;
  uint64_t v = 0;
  while (in >> name >> v) {
    if (!name.empty() && name.back() == ':') name.pop_back();
    found[name] = v;
  }
  auto hit = found.find("hitcount");
  if (hit == found.end()) return Error("no hitcount in the kernel's histogram line: " + line);
  row.hits = hit->second;
  for (const std::string &s : request.sums) {
    auto it = found.find(s);
    if (it == found.end()) return Error("no sum of '" + s + "' in the kernel's histogram line: " + line);
    row.sums.push_back(it->second);
  }
  return row;
}

uint64_t total_of(const std::string &text, const char *label) {
  size_t at = text.find(label);
  if (at == std::string::npos) return 0;
  return std::strtoull(text.c_str() + at + std::char_traits<char>::length(label), nullptr, 10);
}

void sort_rows(std::vector<HistRow> &rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const HistRow &a, const HistRow &b) {
    if (a.hits != b.hits) return a.hits > b.hits;
    return a.keys < b.keys;
  });
}

// "dd [ 175]" -> "dd" (execname keys print the name, then the pid in brackets).
std::string execname_of(const std::string &value) {
  size_t br = value.rfind('[');
  return br == std::string::npos ? value : trim(value.substr(0, br));
}

bool asked_comm(const HistKey &key) { return key.field == "comm"; }

// A key's value for JSON: a number where the kernel printed one.
std::string json_value(const HistKey &key, const std::string &value) {
  if (asked_comm(key) || key.kind == HistKey::Kind::Execname) return json_quote(execname_of(value));
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

std::string text_value(const HistKey &key, const std::string &value) {
  if (asked_comm(key)) return execname_of(value);
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

Result<HistTable> parse_hist(const std::string &text, const HistRequest &request) {
  HistTable table;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto row = parse_row(line, request);
    if (!row) return std::move(row).error();
    table.rows.push_back(std::move(*row));
  }
  table.total_hits = total_of(text, "Hits:");
  table.dropped = total_of(text, "Dropped:");
  sort_rows(table.rows);
  return table;
}

void merge_by_comm(HistTable &table, const HistRequest &request) {
  bool any = std::any_of(request.keys.begin(), request.keys.end(), asked_comm);
  if (!any) return;
  std::map<std::vector<std::string>, HistRow> merged;
  for (HistRow &row : table.rows) {
    for (size_t i = 0; i < row.keys.size(); ++i)
      if (asked_comm(request.keys[i])) row.keys[i] = execname_of(row.keys[i]);
    auto [it, fresh] = merged.try_emplace(row.keys, row);
    if (fresh) continue;
    it->second.hits += row.hits;
    for (size_t s = 0; s < row.sums.size(); ++s) it->second.sums[s] += row.sums[s];
  }
  table.rows.clear();
  for (auto &[keys, row] : merged) table.rows.push_back(std::move(row));
  sort_rows(table.rows);
}

std::string format_hist_text(const HistTable &table, const HistRequest &request) {
  std::vector<std::string> header;
  for (const HistKey &k : request.keys) header.push_back(k.column());
  header.push_back("hits");
  for (const std::string &s : request.sums) header.push_back("sum(" + s + ")");
  std::vector<std::vector<std::string>> cells{header};
  for (const HistRow &row : table.rows) {
    std::vector<std::string> c;
    for (size_t i = 0; i < row.keys.size(); ++i) c.push_back(text_value(request.keys[i], row.keys[i]));
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
