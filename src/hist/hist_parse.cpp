#include "src/hist/hist_parse.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace kpp {

namespace {

constexpr size_t kStringWidth = 50;   // "%-50s"
constexpr size_t kStringMax = 255;    // MAX_FILTER_STR_VAL (256) less its NUL
constexpr size_t kSymWidth = 45;      // "%-45ps"
constexpr size_t kSymMax = 512;       // a symbol and its module
constexpr size_t kCommWidth = 16;     // "%-16s" of a comm of at most 15 bytes
constexpr size_t kStepBudget = 1u << 20;  // string ends tried, per table
constexpr size_t kMaxRows = 1u << 20;

size_t line_at(const std::string &text, size_t at) {
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(at, text.size())), '\n'));
}

std::string trim_right(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

class Parser {
 public:
  Parser(const std::string &text, const HistRequest &request) : t_(text), req_(request) {}

  Result<HistTable> run(HistSnapshot snapshot);

 private:
  bool lit(size_t &at, std::string_view s) const {
    if (t_.compare(at, s.size(), s) != 0) return false;
    at += s.size();
    return true;
  }
  bool number(size_t &at, size_t width, uint64_t &v) const;
  bool hex(size_t &at, std::string &text) const;
  bool keys_from(size_t i, size_t at, HistRow &row, size_t &end);
  bool padded(size_t i, size_t at, size_t width, size_t max, HistRow &row, size_t &end, std::string prefix);
  bool fixed_key(size_t i, size_t &at, HistRow &row) const;
  bool values(size_t at, HistRow &row, size_t &end) const;
  bool next_is_separator(size_t i, size_t at) const;
  Error error(size_t at, const std::string &what) const {
    return Error("the kernel's histogram cannot be read: " + what + " (line " + std::to_string(line_at(t_, at)) + ")");
  }
  Status check_strings(const HistTable &table) const;

  const std::string &t_;
  const HistRequest &req_;
  size_t steps_ = 0;
};

// "%Nllu": right-aligned in N columns, or wider without padding.
bool Parser::number(size_t &at, size_t width, uint64_t &v) const {
  size_t p = at, spaces = 0;
  while (p < t_.size() && t_[p] == ' ') ++p, ++spaces;
  size_t digits = 0;
  v = 0;
  while (p < t_.size() && t_[p] >= '0' && t_[p] <= '9') {
    uint64_t d = static_cast<uint64_t>(t_[p] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
    ++p, ++digits;
  }
  if (digits == 0 || digits > 20 || (spaces > 0 && spaces + digits != width) || spaces + digits < width) return false;
  at = p;
  return true;
}

bool Parser::hex(size_t &at, std::string &text) const {
  size_t p = at;
  while (p < t_.size() && std::isxdigit(static_cast<unsigned char>(t_[p])) && p - at < 16) ++p;
  if (p == at) return false;
  text = t_.substr(at, p - at);
  at = p;
  return true;
}

// What follows key i's value: the next key's ", NAME: ", or the row's end.
bool Parser::next_is_separator(size_t i, size_t at) const {
  if (i + 1 < req_.keys.size()) return t_.compare(at, 2, ", ") == 0 &&
                                       t_.compare(at + 2, req_.keys[i + 1].printed_name().size(),
                                                  req_.keys[i + 1].printed_name()) == 0;
  return t_.compare(at, 13, " } hitcount: ") == 0;
}

// A value padded on the right to `width` and as long as `max`: it ends at the
// first place the rest of the row reads as the kernel prints it.
bool Parser::padded(size_t i, size_t at, size_t width, size_t max, HistRow &row, size_t &end, std::string prefix) {
  for (size_t len = width; len <= max && at + len <= t_.size(); ++len) {
    if (t_[at + len - 1] == '\0' || ++steps_ > kStepBudget) return false;
    if (!next_is_separator(i, at + len)) continue;
    if (!keys_from(i + 1, at + len, row, end)) continue;
    std::string value = t_.substr(at, len);
    // Under the width the kernel padded with spaces; over it, nothing was added.
    row.keys[i] = prefix + (len == width ? trim_right(value) : value);
    return true;
  }
  return false;
}

// A key whose value has one reading: a number, .hex, .log2, .execname.
bool Parser::fixed_key(size_t i, size_t &at, HistRow &row) const {
  const HistKey &key = req_.keys[i];
  uint64_t v = 0;
  if (key.field == "comm" || key.kind == HistKey::Kind::Execname) {
    if (at + kCommWidth > t_.size()) return false;
    std::string comm = t_.substr(at, kCommWidth);
    at += kCommWidth;
    if (comm.find('\0') != std::string::npos || !lit(at, "[") || !number(at, 10, v) || !lit(at, "]")) return false;
    row.keys[i] = trim_right(comm);
    row.pids[i] = v;
    return true;
  }
  if (key.kind == HistKey::Kind::Hex) return hex(at, row.keys[i]);
  if (key.kind == HistKey::Kind::Log2) {
    size_t start = at;
    if (!lit(at, "~ 2^") || !number(at, 0, v)) return false;
    row.keys[i] = "~ 2^" + std::to_string(v);
    while (at - start < 6 && at < t_.size() && t_[at] == ' ') ++at;  // "%-2llu"
    return at - start >= 6;
  }
  if (!number(at, 10, v)) return false;
  row.keys[i] = std::to_string(v);
  return true;
}

bool Parser::keys_from(size_t i, size_t at, HistRow &row, size_t &end) {
  if (i == req_.keys.size()) return values(at, row, end);
  const HistKey &key = req_.keys[i];
  if ((i > 0 && !lit(at, ", ")) || !lit(at, key.printed_name()) || !lit(at, ": ")) return false;
  if (key.string) return padded(i, at, kStringWidth, kStringMax, row, end, "");
  if (key.kind == HistKey::Kind::Sym) {
    std::string address;
    if (!lit(at, "[") || !hex(at, address) || !lit(at, "] ")) return false;
    return padded(i, at, kSymWidth, kSymMax, row, end, "[" + address + "] ");
  }
  if (!fixed_key(i, at, row)) return false;
  return keys_from(i + 1, at, row, end);
}

// " } hitcount: %10llu" then "  SUM: %10llu" per --sum, then the newline.
bool Parser::values(size_t at, HistRow &row, size_t &end) const {
  if (!lit(at, " } hitcount: ") || !number(at, 10, row.hits)) return false;
  row.sums.assign(req_.sums.size(), 0);
  for (size_t s = 0; s < req_.sums.size(); ++s)
    if (!lit(at, "  ") || !lit(at, req_.sums[s]) || !lit(at, ": ") || !number(at, 10, row.sums[s])) return false;
  if (!lit(at, "\n")) return false;
  end = at;
  return true;
}

// With two string keys, one could end inside the other's text and swallow
// the separators between them: a string holding one is refused.
Status Parser::check_strings(const HistTable &table) const {
  size_t strings = std::count_if(req_.keys.begin(), req_.keys.end(), [](const HistKey &k) { return k.string; });
  if (strings < 2) return Ok{};
  std::vector<std::string> separators = {"\n{ ", " } hitcount: "};
  for (const HistKey &k : req_.keys) separators.push_back(", " + k.printed_name() + ": ");
  for (const HistRow &row : table.rows)
    for (size_t i = 0; i < row.keys.size(); ++i)
      for (const std::string &sep : separators)
        if (req_.keys[i].string && row.keys[i].find(sep) != std::string::npos)
          return Error("the kernel's histogram is refused: a value of " + req_.keys[i].field +
                       " holds text that reads as the table's own ('" + (sep[0] == '\n' ? "\\n{ " : sep) +
                       "'), and with two string keys it cannot be told where it ends");
  return Ok{};
}

Result<HistTable> Parser::run(HistSnapshot snapshot) {
  HistTable table;
  size_t at = 0;
  if (!lit(at, "# event histogram\n#\n# trigger info: ")) return error(at, "no '# event histogram' header");
  size_t eol = t_.find('\n', at);
  if (eol == std::string::npos) return error(at, "the trigger info has no end");
  at = eol + 1;
  if (!lit(at, "#\n\n")) return error(at, "the header does not end as the kernel's does");
  while (t_.compare(at, 2, "{ ") == 0) {
    HistRow row;
    row.keys.resize(req_.keys.size());
    row.pids.resize(req_.keys.size());
    size_t end = 0;
    if (!keys_from(0, at + 2, row, end))
      return error(at, steps_ > kStepBudget ? "too many ways to read its string keys" : "a row of another shape");
    table.rows.push_back(std::move(row));
    if (table.rows.size() > kMaxRows) return error(at, "more than " + std::to_string(kMaxRows) + " rows");
    at = end;
  }
  uint64_t entries = 0;
  if (!lit(at, "\nTotals:\n    Hits: ") || !number(at, 0, table.total_hits) || !lit(at, "\n    Entries: ") ||
      !number(at, 0, entries) || !lit(at, "\n    Dropped: ") || !number(at, 0, table.dropped) || !lit(at, "\n"))
    return error(at, "no Totals after the rows");
  if (at != t_.size()) return error(at, "more than one histogram on the event");
  uint64_t hits = 0;
  bool overflow = false;
  for (const HistRow &row : table.rows) overflow |= __builtin_add_overflow(hits, row.hits, &hits);
  bool adds_up = !overflow && entries == table.rows.size() &&
                 (snapshot == HistSnapshot::Still ? hits == table.total_hits : hits <= table.total_hits);
  if (!adds_up)
    return Error("the kernel's histogram does not add up: " + std::to_string(table.rows.size()) + " rows of " +
                     std::to_string(hits) + " hits read, its Totals say " + std::to_string(entries) + " entries of " +
                     std::to_string(table.total_hits) + " hits; a string key holds text that reads as rows: the "
                     "table is refused",
                 "key by another field, or --filter out the forged values");
  if (Status s = check_strings(table); !s) return std::move(s).error();
  return table;
}

}  // namespace

Result<HistTable> parse_hist(const std::string &text, const HistRequest &request, HistSnapshot snapshot) {
  Parser parser(text, request);
  auto table = parser.run(snapshot);
  if (!table) return table;
  sort_hist_rows(table->rows);
  return table;
}

}  // namespace kpp
