// MetricsRegistry: what `kprobe-probe export` counts, as plain data that
// metrics_text.h renders in Prometheus's text format. Pure: no tracefs, no
// HTTP, no locking (ExportSink serializes access between the session that
// writes and the server thread that renders).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/export/power_histogram.h"

namespace kpp {

struct EventKey {
  std::string group;
  std::string event;
  auto operator<=>(const EventKey &) const = default;
};

struct EventCounters {
  uint64_t hits = 0;
  bool has_misses = false;  // kprobes report misses (kprobe_profile); uprobes have none
  uint64_t misses = 0;
};

struct LostCounters {
  uint64_t events = 0;   // events the kernel said it dropped
  uint64_t unknown = 0;  // times it dropped some without saying how many
};

// An entry probe and a return probe of one function, and the time between them.
struct LatencyMetric {
  std::string group;
  std::string entry;   // event names
  std::string ret;
  PowerHistogram ns;   // nanoseconds; rendered in seconds
  uint64_t unmatched = 0;  // returns with no entry on their thread
};

struct ArgKey {
  std::string group;
  std::string event;
  std::string arg;
  auto operator<=>(const ArgKey &) const = default;
};

class MetricsRegistry {
 public:
  // Makes the event's counter exist (0) before its first hit, so a probe
  // that never fires is visible as such.
  void declare_event(const EventKey &key);
  void add_hit(const EventKey &key);
  void set_misses(const EventKey &key, uint64_t misses);

  // CPUs 0..cpus-1 get a lost-events counter (0 until the kernel drops some).
  void declare_cpus(int cpus);
  // `count` < 0: the kernel dropped events without saying how many.
  void add_lost(int cpu, int64_t count);

  // Returns the pair's index for add_latency/add_unmatched.
  size_t add_latency_pair(const std::string &group, const std::string &entry, const std::string &ret);
  void add_latency(size_t pair, uint64_t ns) { latency_[pair].ns.add(ns); }
  void add_unmatched(size_t pair) { ++latency_[pair].unmatched; }

  // One value of a --hist argument.
  void add_arg_value(const ArgKey &key, int64_t value) { args_[key].add_signed(value); }
  void add_arg_value(const ArgKey &key, uint64_t value) { args_[key].add(value); }

  const std::map<EventKey, EventCounters> &events() const { return events_; }
  const std::map<int, LostCounters> &lost() const { return lost_; }
  const std::vector<LatencyMetric> &latency() const { return latency_; }
  const std::map<ArgKey, PowerHistogram> &args() const { return args_; }

 private:
  std::map<EventKey, EventCounters> events_;
  std::map<int, LostCounters> lost_;
  std::vector<LatencyMetric> latency_;
  std::map<ArgKey, PowerHistogram> args_;
};

}  // namespace kpp
