// LiveModel: everything the live view shows, computed from decoded events
// and periodic ticks, with no terminal. The CLI feeds it from the event
// stream (on_event/on_lost, so counts are the stream's, never what was
// drawn) and from tracefs (statuses, kprobe misses); render.h draws it.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "event/event.h"
#include "tui/event_log.h"
#include "tui/kernel_histogram.h"
#include "tui/latency_pairs.h"
#include "tui/stack_tally.h"
#include "tui/value_summary.h"

namespace kpp::tui {

enum class ProbeStatus { Enabled, Disabled, Gone, Optimized, Ftrace };

// "enabled", "disabled", "[GONE]", "[OPTIMIZED]", "[FTRACE]".
const char *status_name(ProbeStatus status);

// What the view knows about a probe before it fires.
struct ProbeInfo {
  std::string group;
  std::string event;
  std::string where;  // "walk:5@kpp_demo.c", or the raw definition
  // Where it attaches ("/bin/prog:0x1149", "vfs_read+0"): an entry probe and
  // a return probe on the same site make a latency pair. Empty: none.
  std::string site;
  bool is_return = false;
};

struct ArgStats {
  std::string name;
  ValueSummary summary;
};

struct ProbeRow {
  ProbeInfo info;
  std::string id;  // "group:event"
  ProbeStatus status = ProbeStatus::Enabled;
  uint64_t hits = 0;
  bool has_missed = false;  // kprobes report misses; uprobes do not
  uint64_t missed = 0;
  double rate = 0;              // hits/s over the last tick interval
  std::deque<double> history;   // rates, oldest first, one per tick
  std::vector<ArgStats> args;   // per field, in the event's field order
  StackTally stacks;            // the stacks it fired with (--stack)
  int pair_entry = -1;          // latency pair this probe enters, or -1
  int pair_return = -1;         // latency pair this probe returns from, or -1
  uint64_t hits_at_tick = 0;
};

enum class SortKey { Hits, Rate, Name };
const char *sort_name(SortKey key);

struct LiveModelOptions {
  size_t log_capacity = 2000;
  size_t history_length = 120;  // rate samples kept per probe
};

// Facts about the session for the status line.
struct SessionFacts {
  std::string instance;
  int cpus = 0;
  std::string recording;  // trace.dat being written, or empty
  std::string command;    // "kpp_demo running", "kpp_demo exited 0", or empty
};

class LiveModel {
 public:
  explicit LiveModel(LiveModelOptions options = {});

  // Adds a row (before events arrive, so silent probes show too) and pairs
  // it with an earlier probe of the other kind on the same site. Returns its
  // index; adding an id twice returns the first row.
  size_t add_probe(ProbeInfo info);
  void set_status(const std::string &id, ProbeStatus status);
  void set_missed(const std::string &id, uint64_t missed);

  // One decoded event: hits, log, latency pairing, argument summaries.
  // Events of unknown probes get a row of their own.
  void on_event(const Event &event);
  // The kernel dropped `count` events on `cpu` (< 0: an unknown number).
  void on_lost(int cpu, int64_t count);
  // Closes a rate interval at `now_ns` (same clock as the events' times is
  // not required; only differences between ticks are used).
  void tick(uint64_t now_ns);

  const std::vector<ProbeRow> &probes() const { return probes_; }
  // Row indexes in display order for `key` (ties by id, so stable).
  std::vector<size_t> sorted(SortKey key) const;
  // The row of "group:event", or -1.
  int find(const std::string &id) const;

  const std::vector<LatencyPair> &pairs() const { return pairs_.pairs(); }
  EventLog &log() { return log_; }
  const EventLog &log() const { return log_; }

  uint64_t events() const { return events_; }
  double events_rate() const { return events_rate_; }
  uint64_t lost() const { return lost_; }
  bool lost_unknown() const { return lost_unknown_; }
  uint64_t ticks() const { return ticks_; }

  // The kernel's histograms running now (read once a tick by the live layer).
  void set_kernel_histograms(std::vector<KernelHistogram> histograms) { kernel_histograms_ = std::move(histograms); }
  const std::vector<KernelHistogram> &kernel_histograms() const { return kernel_histograms_; }

  SessionFacts &facts() { return facts_; }
  const SessionFacts &facts() const { return facts_; }

 private:
  size_t row_for(const Event &event);
  void pair_with_earlier(size_t index);

  LiveModelOptions options_;
  std::vector<ProbeRow> probes_;
  size_t last_row_ = 0;  // the row of the previous event: events come in runs
  LatencyPairs pairs_;
  EventLog log_;
  SessionFacts facts_;
  std::vector<KernelHistogram> kernel_histograms_;
  uint64_t events_ = 0, events_at_tick_ = 0;
  double events_rate_ = 0;
  uint64_t lost_ = 0;
  bool lost_unknown_ = false;
  uint64_t last_tick_ns_ = 0, ticks_ = 0;
};

}  // namespace kpp::tui
