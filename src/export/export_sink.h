// ExportSink: the session's events counted into a MetricsRegistry, which an
// HTTP server thread renders while the session runs. Every access to the
// registry goes through this class's lock.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/export/metrics_registry.h"
#include "src/stream/event_sink.h"
#include "event/pair_owner.h"

namespace kpp {

// What the export command decided before the session starts.
struct ExportPlan {
  std::vector<EventKey> events;  // shown with 0 hits before they fire
  struct Pair {
    EventKey entry;
    EventKey ret;
  };
  std::vector<Pair> pairs;             // latency pairs
  std::vector<std::string> hist_args;  // --hist: field names, in any event that has them
};

class ExportSink : public EventSink {
 public:
  // A thread's entries waiting for their return are capped per thread (a
  // missed return must not grow memory) and in all (threads that exit inside
  // a probed call leave theirs behind).
  static constexpr size_t kMaxDepth = 256;
  static constexpr size_t kMaxOpenThreads = 65536;

  explicit ExportSink(const ExportPlan &plan);

  Status on_start(const StreamInfo &info) override;
  Status on_event(const Event &event) override;
  void on_lost(int cpu, int64_t count) override;

  // Thread-safe: the kernel's miss count of a kprobe event.
  void set_misses(const EventKey &key, uint64_t misses);
  // Thread-safe: the registry in Prometheus's text format.
  std::string render() const;

 private:
  struct Roles {
    int entry_of = -1;   // the latency pair this event enters, or -1
    int return_of = -1;  // the pair it returns from, or -1
  };

  void pair_event(const Event &event, const Roles &roles);

  mutable std::mutex mutex_;
  MetricsRegistry registry_;
  std::vector<std::string> hist_args_;
  std::unordered_map<std::string, Roles> roles_;  // "group:event"
  std::unordered_map<PairOwner, std::vector<uint64_t>, PairOwnerHash> open_;  // -> entry times
  std::string id_;  // scratch for "group:event"
};

}  // namespace kpp
