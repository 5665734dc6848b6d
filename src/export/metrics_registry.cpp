#include "src/export/metrics_registry.h"

namespace kpp {

void MetricsRegistry::declare_event(const EventKey &key) { events_.try_emplace(key); }

void MetricsRegistry::add_hit(const EventKey &key) { ++events_[key].hits; }

void MetricsRegistry::set_misses(const EventKey &key, uint64_t misses) {
  EventCounters &c = events_[key];
  c.has_misses = true;
  c.misses = misses;
}

void MetricsRegistry::declare_cpus(int cpus) {
  for (int cpu = 0; cpu < cpus; ++cpu) lost_.try_emplace(cpu);
}

void MetricsRegistry::add_lost(int cpu, int64_t count) {
  LostCounters &c = lost_[cpu];
  if (count < 0) ++c.unknown;
  else c.events += static_cast<uint64_t>(count);
}

size_t MetricsRegistry::add_latency_pair(const std::string &group, const std::string &entry, const std::string &ret) {
  LatencyMetric m;
  m.group = group;
  m.entry = entry;
  m.ret = ret;
  latency_.push_back(std::move(m));
  return latency_.size() - 1;
}

}  // namespace kpp
