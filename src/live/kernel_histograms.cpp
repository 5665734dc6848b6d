#include "src/live/kernel_histograms.h"

#include <algorithm>
#include <optional>

#include "src/hist/event_fields.h"
#include "src/hist/hist_parse.h"
#include "src/hist/hist_request.h"
#include "src/hist/hist_table.h"
#include "src/stream/instance_triggers.h"
#include "src/stream/stale_instances.h"

namespace kpp {

namespace {

constexpr size_t kMaxInstances = 32;
constexpr size_t kMaxEvents = 1024;          // dynamic events looked at per instance
constexpr size_t kMaxTriggerBytes = 64u << 10;
constexpr size_t kMaxFormatBytes = 64u << 10;
constexpr size_t kMaxHistBytes = 1u << 20;   // a full 8192-entry table of two keys fits
constexpr size_t kMaxRowsShown = 200;

std::optional<std::string> read_capped(const Tracefs &tracefs, const std::string &path, size_t cap,
                                       bool *truncated = nullptr) {
  std::string text;
  if (!tracefs.read_capped(path, cap, text, truncated)) return std::nullopt;
  return text;
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

std::vector<std::string> our_instances(const Tracefs &tracefs) {
  std::vector<std::string> names;
  for (const std::string &name : tracefs.entries("instances", SIZE_MAX))
    if (instance_owner(name) && names.size() < kMaxInstances) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string keys_text(const HistRequest &request) {
  std::string keys;
  for (const HistKey &k : request.keys) keys += (keys.empty() ? "" : ", ") + k.column();
  return keys;
}

// The table of one trigger, as `hist` prints it (or why it cannot be shown).
tui::KernelHistogram histogram_of(const Tracefs &tracefs, const std::string &event_dir, HistRequest request) {
  tui::KernelHistogram h;
  h.keys = keys_text(request);
  // Its string keys are read as strings (and a sum of one is not shown).
  auto format = read_capped(tracefs, event_dir + "/format", kMaxFormatBytes);
  if (!format) return h;
  if (Status s = apply_event_fields(request, *format); !s) {
    h.table = {"(not shown: " + s.error().message + ")"};
    return h;
  }
  bool truncated = false;
  auto text = read_capped(tracefs, event_dir + "/hist", kMaxHistBytes, &truncated);
  if (!text) return h;
  if (truncated) {
    h.table = {"(the table is over 1 MiB: read it with kprobe-probe hist)"};
    return h;
  }
  auto table = parse_hist(*text, request, HistSnapshot::Live);
  if (!table) {
    h.table = {"(cannot read the table: " + table.error().message + ")"};
    return h;
  }
  merge_by_comm(*table, request);
  h.hits = table->total_hits;
  h.table = lines_of(format_hist_text(*table, request));
  if (h.table.size() > kMaxRowsShown + 1) {
    size_t more = h.table.size() - kMaxRowsShown - 1;
    h.table.resize(kMaxRowsShown + 1);
    h.table.push_back("(" + std::to_string(more) + " more rows)");
  }
  return h;
}

}  // namespace

std::vector<tui::KernelHistogram> KernelHistograms::read() const {
  std::vector<tui::KernelHistogram> out;
  std::vector<std::string> instances = our_instances(tracefs_);
  if (instances.empty()) return out;
  std::vector<std::string> events = dynamic_event_dirs(tracefs_, kMaxEvents);
  for (const std::string &instance : instances)
    for (const std::string &event : events) {
      std::string dir = "instances/" + instance + "/events/" + event;
      auto triggers = read_capped(tracefs_, dir + "/trigger", kMaxTriggerBytes);
      if (!triggers) continue;
      for (const std::string &line : lines_of(*triggers)) {
        auto request = parse_hist_trigger(line);
        if (!request) continue;
        tui::KernelHistogram h = histogram_of(tracefs_, dir, *request);
        if (h.table.empty()) continue;  // gone meanwhile
        h.event = event.substr(0, event.find('/')) + ":" + event.substr(event.find('/') + 1);
        h.instance = instance;
        out.push_back(std::move(h));
      }
    }
  return out;
}

}  // namespace kpp
