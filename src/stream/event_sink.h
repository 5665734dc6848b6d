// EventSink: what the stream hands its output to (printers, trace.dat writer,
// the live view). Every hook has a no-op default.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "src/stream/companions.h"
#include "event/event.h"
#include "util/result.h"

struct tracefs_instance;

namespace kpp {

// What a sink may need to know about the stream before data arrives.
struct StreamInfo {
  std::string tracing_dir;             // e.g. /sys/kernel/tracing
  std::string instance_name;
  tracefs_instance *instance = nullptr;
  std::vector<std::string> systems;    // systems (groups) of the enabled events
  int cpus = 0;                        // per-CPU buffers read (cpu 0..cpus-1)
  int page_size = 0;                   // ring-buffer sub-buffer size in bytes
  std::string clock;                   // trace clock in use ("mono", "local", ...)
  std::vector<ProbeShape> probes;      // the probe events among the formats read (no sites)
};

class EventSink {
 public:
  virtual ~EventSink() = default;

  // Called once before any data. An error aborts the session.
  virtual Status on_start(const StreamInfo &) { return Ok{}; }
  // False: the stream need not decode for this sink.
  virtual bool wants_events() const { return true; }
  // True: the sink receives every raw ring-buffer page, per CPU in read order.
  virtual bool wants_pages() const { return false; }
  // A raw page exactly as read from per_cpu/cpuN/trace_pipe_raw (less the
  // events a drops_events() sink left out, made padding: page_filter.h).
  virtual Status on_page(int cpu, std::span<const uint8_t> page) { (void)cpu; (void)page; return Ok{}; }
  // True: the sink leaves some events out of what it shows (a -p
  // session's task filter) and the pages must not keep them either: the
  // stream decodes every event, asks dropped_last() after on_event(), and
  // hands each page on once all its events were asked.
  virtual bool drops_events() const { return false; }
  virtual bool dropped_last() const { return false; }
  // A decoded event, in global timestamp order. `event` is only valid during
  // the call (its storage is reused); copy it to keep it.
  virtual Status on_event(const Event &event) { (void)event; return Ok{}; }
  // The kernel dropped events on `cpu` before the next record; count < 0
  // means dropped but the kernel did not say how many.
  virtual void on_lost(int cpu, int64_t count) { (void)cpu; (void)count; }
  // The end of a batch: the events of one poll of the buffers (at most
  // ~100 ms apart while events flow). Printers flush here.
  virtual Status on_batch_end() { return Ok{}; }
  // Called once after the last data (also after an interrupt).
  virtual Status on_finish() { return Ok{}; }
};

}  // namespace kpp
