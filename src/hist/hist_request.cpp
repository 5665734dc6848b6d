#include "src/hist/hist_request.h"

#include <cctype>
#include <cstring>

#include "src/stream/filter_expression.h"

namespace kpp {

namespace {

bool is_identifier(const std::string &s) {
  if (s.empty() || s.size() > 64) return false;
  if (!std::isalpha(static_cast<unsigned char>(s[0])) && s[0] != '_') return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Entries the kernel keeps per histogram (its default is 2048; one key per
// process name or per log2 bucket needs far fewer, but several keys multiply).
constexpr int kHistSize = 8192;

}  // namespace

std::string HistKey::trigger_key() const {
  // Kernels before 6.x have no per-event comm field to key on; the pid's
  // execname is there on every kernel with hist triggers, and rows of one
  // name are added up afterwards (merge_by_comm).
  if (field == "comm") return "common_pid.execname";
  switch (kind) {
    case Kind::Plain: return field;
    case Kind::Log2: return field + ".log2";
    case Kind::Hex: return field + ".hex";
    case Kind::Sym: return field + ".sym";
    case Kind::Execname: return field + ".execname";
  }
  return field;
}

std::string HistKey::column() const { return kind == Kind::Log2 ? field + ".log2" : field; }

std::string HistKey::printed_name() const { return field == "comm" ? "common_pid" : field; }

Result<HistKey> parse_hist_key(const std::string &text) {
  HistKey key;
  std::string field = text;
  size_t dot = text.find('.');
  if (dot != std::string::npos) {
    field = text.substr(0, dot);
    std::string mod = text.substr(dot + 1);
    if (mod == "log2") key.kind = HistKey::Kind::Log2;
    else if (mod == "hex") key.kind = HistKey::Kind::Hex;
    else if (mod == "sym") key.kind = HistKey::Kind::Sym;
    else if (mod == "execname") key.kind = HistKey::Kind::Execname;
    else
      return Error("--by " + text + ": unknown modifier '." + mod + "'",
                   "modifiers: .log2 .hex .sym .execname");
  }
  if (Status s = check_hist_field("--by", field); !s) return std::move(s).error();
  // The kernel's stack key (`common_stacktrace` since 6.5) is the kernel
  // stack at the hit, printed over several lines: no uprobe's user stack.
  if (field == "stacktrace" || field == "common_stacktrace")
    return Error("--by " + field + ": the kernel's stack key holds kernel stacks only (at a uprobe, the kernel's own "
                 "frames, not the program's), and hist does not read its rows",
                 kHistStackAlternative);
  key.field = field;
  return key;
}

Status check_hist_field(const std::string &option, const std::string &field) {
  if (!is_identifier(field))
    return Error(option + " '" + field + "': not a field name",
                 "fields are the event's argument names, or comm, common_pid, common_cpu");
  return Ok{};
}

Status check_hist_filter(const std::string &filter) { return check_filter_expression(filter); }

std::string hist_trigger(const HistRequest &request) {
  std::string t = "hist:keys=";
  for (size_t i = 0; i < request.keys.size(); ++i) t += (i ? "," : "") + request.keys[i].trigger_key();
  t += ":vals=hitcount";
  for (const std::string &s : request.sums) t += "," + s;
  t += ":sort=hitcount.descending:size=" + std::to_string(kHistSize);
  if (!request.filter.empty()) t += " if " + request.filter;
  return t;
}

std::string hist_pause_trigger(const std::string &trigger) {
  size_t cond = trigger.find(" if ");
  if (cond == std::string::npos) return trigger + ":pause";
  return trigger.substr(0, cond) + ":pause" + trigger.substr(cond);
}

namespace {

// One key as the kernel prints it back: "common_pid.execname" is our comm.
std::optional<HistKey> key_from_trigger(const std::string &text) {
  if (text == "common_pid.execname") return HistKey{"comm", HistKey::Kind::Plain};
  auto key = parse_hist_key(text);
  if (!key) return std::nullopt;
  return *key;
}

std::vector<std::string> split_on(const std::string &text, char sep) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (;;) {
    size_t next = text.find(sep, at);
    parts.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return parts;
    at = next + 1;
  }
}

}  // namespace

std::optional<HistRequest> parse_hist_trigger(const std::string &line) {
  if (line.rfind("hist:", 0) != 0 || line.size() > 4096) return std::nullopt;
  std::string body = line.substr(5);
  for (const char *state : {" [active]", " [paused]"})
    if (body.size() >= std::strlen(state) && body.compare(body.size() - std::strlen(state), std::string::npos, state) == 0)
      body.resize(body.size() - std::strlen(state));
  HistRequest request;
  if (size_t cond = body.find(" if "); cond != std::string::npos) {
    request.filter = body.substr(cond + 4);
    body.resize(cond);
  }
  bool vals = false;
  for (const std::string &part : split_on(body, ':')) {
    size_t eq = part.find('=');
    std::string name = part.substr(0, eq), value = eq == std::string::npos ? "" : part.substr(eq + 1);
    if (name == "keys" || name == "key") {
      for (const std::string &k : split_on(value, ',')) {
        auto key = key_from_trigger(k);
        if (!key) return std::nullopt;
        request.keys.push_back(*key);
      }
    } else if (name == "vals" || name == "values") {
      for (const std::string &v : split_on(value, ','))
        if (v != "hitcount") {
          if (!check_hist_field("--sum", v)) return std::nullopt;
          request.sums.push_back(v);
        }
      vals = true;
    } else if (name != "sort" && name != "size" && name != "clock") {
      return std::nullopt;  // a variable (ts0=...), an action (onmatch(...)), pause, ...
    }
  }
  if (request.keys.empty() || !vals) return std::nullopt;
  return request;
}

}  // namespace kpp
