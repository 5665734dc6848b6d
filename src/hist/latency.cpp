#include "src/hist/latency.h"

namespace kpp {

LatencyTriggers latency_triggers(const EventId &entry, const std::string &synthetic_name) {
  LatencyTriggers t;
  t.synthetic_name = synthetic_name;
  t.synthetic_definition = t.synthetic_name + " u64 lat_us";
  // Keyed by pid (the kernel's common_pid is the thread): a return pairs with
  // its own thread's entry, as a kretprobe does.
  t.entry_trigger = "hist:keys=common_pid:kpp_ts0=common_timestamp.usecs";
  t.return_trigger = "hist:keys=common_pid:kpp_lat=common_timestamp.usecs-$kpp_ts0:onmatch(" + entry.system + "." +
                     entry.name + ").trace(" + t.synthetic_name + ",$kpp_lat)";
  HistKey key;
  key.field = "lat_us";
  key.kind = HistKey::Kind::Log2;
  t.histogram.keys.push_back(key);
  return t;
}

}  // namespace kpp
