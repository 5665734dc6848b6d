// perf probe's group and event names (REFERENCE.md 1.1, 1.2), so that scripts
// written against perf's names keep working.
#include <algorithm>
#include <cctype>
#include <tuple>
#include <cstdio>

#include "dwarf/lang/rust_names.h"
#include "dwarf/names.h"
#include "src/definition/probe_builder.h"

namespace kpp {

namespace {

constexpr size_t max_event_name = 64;  // the kernel's MAX_EVENT_NAME_LEN, NUL included
constexpr int max_event_index = 1024;  // perf's MAX_EVENT_INDEX

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The base name from the function: C symbols are cut at their first '.'
// ("walk.isra.0" -> "walk"); anything else that is not a C identifier
// character becomes '_' so that C++ or Go names still make valid events
// ("shapes::twice(long)" -> "shapes_twice_long", Go's "main.(*Shop).Restock"
// -> "main_Shop_Restock"), as newer perf does.
std::string event_base(const std::string &function) {
  std::string name(dwarf::source_name_of_symbol(function));
  // Rust's legacy spelling with the hash names the function the hash does: its event is the name's.
  if (size_t at = name.rfind("::"); at != std::string::npos && dwarf::is_rust_hash(std::string_view(name).substr(at + 2)))
    name.resize(at);
  std::string out;
  for (char c : name) {
    if (is_ident_char(c)) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

// perf's default name, as the function part and the suffix perf adds to it.
struct DefaultEvent {
  std::string stem, suffix;
};

DefaultEvent default_event(const ResolvedSpec &r) {
  const ProbePoint &p = r.spec.point;
  std::string function = p.function;
  if (function.empty() && !r.sites.empty()) {
    // SRC:ALN: named after the function that holds the line, as perf does.
    const std::string &point = r.sites.front().point;
    function = point.substr(0, point.find_first_of(":+@%"));
  }
  DefaultEvent name{event_base(function), {}};
  if (p.is_return) name.suffix = "__return";
  else if (p.line != 0 && p.lazy_pattern.empty() && !p.offset) name.suffix = "_L" + std::to_string(p.line);
  return name;
}

// FNV-1a: small, and the same on every machine and run.
uint64_t stable_hash(const std::string &s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// The room the companions' suffixes ("__entry") need after the event's name.
size_t companion_room(const ResolvedSpec &r) {
  size_t room = 0;
  for (const ResolvedProbe &site : r.sites)
    for (const TraceDefinition &c : site.companions) room = std::max(room, c.event.size());
  return room;
}

// The kernel joins probe points under one event only when their arguments
// have the same names and types; sites whose arguments differ (a template's
// instances, say) get events of their own, _1, _2..., as perf probe makes
// them. The sites of `r` grouped so, in order.
std::vector<std::vector<ResolvedProbe *>> group_by_signature(ResolvedSpec &r) {
  auto same_args = [](const std::vector<FetchArg> &a, const std::vector<FetchArg> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const FetchArg &x, const FetchArg &y) {
      return x.name == y.name && x.type == y.type && x.fixup == y.fixup;  // the fixup is in the field name
    });
  };
  std::vector<std::vector<ResolvedProbe *>> by_signature;
  for (ResolvedProbe &site : r.sites) {
    // The companions (entry values) become events of the same name too.
    auto same = [&](const std::vector<ResolvedProbe *> &g) {
      const ResolvedProbe &first = *g.front();
      if (!same_args(first.definition.args, site.definition.args)) return false;
      if (first.companions.size() != site.companions.size()) return false;
      for (size_t i = 0; i < first.companions.size(); ++i)
        if (!same_args(first.companions[i].args, site.companions[i].args)) return false;
      return true;
    };
    auto it = std::find_if(by_signature.begin(), by_signature.end(), same);
    if (it == by_signature.end()) by_signature.push_back({&site});
    else it->push_back(&site);
  }
  return by_signature;
}

// The kernel refuses len >= MAX_EVENT_NAME_LEN (traceprobe_parse_event_name), as
// perf's snprintf into a 64-byte buffer does: at most 63 bytes, suffix included.
// Only a name the user gave, with its companions' suffixes, can be too long.
Error too_long(const std::string &event, size_t limit) {
  return Error("the event name '" + event + "' is too long (the kernel takes at most " +
                   std::to_string(max_event_name - 1) + " bytes" +
                   (limit < max_event_name - 1
                        ? ", and its entry-value companions add " + std::to_string(max_event_name - 1 - limit)
                        : std::string()) +
                   ")",
               "choose a shorter name, or leave it out for one made to fit");
}

}  // namespace

std::string fit_event_name(const std::string &name, size_t keep_tail, size_t limit) {
  constexpr size_t hash_len = 9;  // "_" and 8 hex digits
  if (name.size() <= limit || limit < hash_len + keep_tail + 1) return name;
  char hash[hash_len + 1];
  std::snprintf(hash, sizeof hash, "_%08x", static_cast<unsigned>(stable_hash(name) & 0xffffffffu));
  return name.substr(0, limit - hash_len - keep_tail) + hash + name.substr(name.size() - keep_tail);
}

std::string default_group(const std::string &target_path) {
  if (target_path.empty()) return "probe";
  std::string base = target_path.substr(target_path.rfind('/') + 1);
  size_t cut = 0;
  while (cut < base.size() && is_ident_char(base[cut])) ++cut;
  // The kernel takes group names of at most 63 bytes too.
  return fit_event_name("probe_" + base.substr(0, cut), 0);
}

Status assign_event_names(std::vector<ResolvedSpec> &specs, const std::string &target_path,
                          std::set<std::string> taken, bool allow_suffix) {
  for (ResolvedSpec &r : specs) {
    std::string group = r.spec.group.empty() ? default_group(target_path) : r.spec.group;
    // Names the kernel would refuse as too long are shortened; a name the
    // user gave is theirs (the parser refuses it when it is too long).
    size_t limit = max_event_name - 1 - companion_room(r);
    std::string wanted = r.spec.event;  // the name before it was made to fit
    std::string base = wanted;
    if (base.empty()) {
      DefaultEvent d = default_event(r);
      wanted = d.stem + d.suffix;
      base = fit_event_name(wanted, d.suffix.size(), limit);
    }
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0])))
      return Error("cannot make an event name for '" + r.spec.text + "'",
                   "name it yourself: 'EVENT=" + r.spec.text + "'");
    // The free "base_N" and the name it would have without fitting.
    auto free_suffixed = [&]() -> Result<std::pair<std::string, std::string>> {
      for (int index = 1; index < max_event_index; ++index) {
        std::string suffix = "_" + std::to_string(index);
        std::string name = fit_event_name(base + suffix, suffix.size(), limit);
        if (!taken.count(group + ":" + name)) return std::pair{name, wanted + suffix};
      }
      return Error("too many events on the same function ('" + base + "')");
    };
    std::vector<std::vector<ResolvedProbe *>> by_signature = group_by_signature(r);
    for (size_t g = 0; g < by_signature.size(); ++g) {
      std::string event = base, unfitted = wanted;
      if (g > 0 || taken.count(group + ":" + event)) {
        if (g == 0 && !allow_suffix)
          return Error("event \"" + group + ":" + event + "\" already exists",
                       "remove it with 'kprobe-probe -d " + group + ":" + event + "', or add -f to get a new name (" +
                           event + "_1)");
        auto suffixed = free_suffixed();
        if (!suffixed) return std::move(suffixed).error();
        std::tie(event, unfitted) = *suffixed;
      }
      // The kernel refuses len >= MAX_EVENT_NAME_LEN (traceprobe_parse_event_name), as
      // perf's snprintf into a 64-byte buffer does: at most 63 bytes, suffix included.
      // Only a name the user gave, with its companions' suffixes, can be too long here.
      if (event.size() > limit) return too_long(event, limit);
      taken.insert(group + ":" + event);
      for (ResolvedProbe *site : by_signature[g]) {
        site->definition.group = group;
        site->definition.event = event;
        site->long_event = event != unfitted ? unfitted : "";
        for (TraceDefinition &companion : site->companions) {
          companion.group = group;
          companion.event = event + companion.event;
        }
      }
    }
  }
  return Ok{};
}

}  // namespace kpp
