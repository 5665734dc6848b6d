// EventStream: reads a TraceInstance's per-CPU ring buffers as raw pages
// (libtracefs tracefs_cpu_*), hands each page to sinks that want pages (the
// trace.dat writer), and decodes the records (libtraceevent, the kernel's own
// format files) into Events delivered in global timestamp order.
//
// Ordering across CPUs: with the instance's clock set to "mono", the stream
// takes CLOCK_MONOTONIC before draining the CPUs; every record stamped before
// that watermark has been read, so it is safe to emit. Later ones wait for the
// next poll. With another clock, each poll emits everything it read.
//
// Lost events: the kernel flags pages that follow dropped records, and
// stores the count when the page has room; otherwise the exact count comes
// from the CPU's stats file (overrun + dropped events; our instance is
// fresh, so these are ours). Each loss is reported to the sinks (on_lost)
// and counted per CPU (lost()); flush() reconciles every CPU with stats.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/stream/comm_cache.h"
#include "event/event.h"
#include "src/stream/event_decoder.h"
#include "src/stream/event_sink.h"
#include "src/stream/trace_instance.h"
#include "util/result.h"

struct tracefs_cpu;
struct tep_handle;
struct kbuffer;

namespace kpp {

class EventStream {
 public:
  // Opens one reader per CPU of `instance` and loads the formats of the
  // systems it enabled. Sinks are not owned and must outlive the stream.
  // Errors: no CPU buffer could be opened, formats could not be parsed.
  // With `stacks`, the kernel's own stack events (the "ftrace" system:
  // kernel_stack, user_stack) are decoded too.
  static Result<std::unique_ptr<EventStream>> open(const TraceInstance &instance,
                                                   std::vector<EventSink *> sinks, bool stacks = false);
  ~EventStream();
  EventStream(const EventStream &) = delete;
  EventStream &operator=(const EventStream &) = delete;

  // What sinks get in on_start().
  const StreamInfo &info() const { return info_; }
  // Calls on_start() on every sink.
  Status start();

  // Waits up to `timeout_ms` (returns early if one of `wake_fds` (>= 0)
  // becomes readable or a signal arrives), then drains every CPU and
  // delivers the events that are safe to order, then ends the batch
  // (on_batch_end), also an empty one. Returns how many it delivered.
  Result<size_t> poll(int timeout_ms, const std::vector<int> &wake_fds = {});

  // Drains every CPU and delivers everything still pending, in order. Call
  // after disabling the events, before close().
  Result<size_t> flush();

  // Calls on_finish() on every sink (once).
  Status finish();

  // Closes the per-CPU files (the instance cannot be removed while they are
  // open). Idempotent; the destructor calls it.
  void close();

  // Events seen (decoded or counted), total and per "system:event".
  uint64_t events() const { return events_; }
  const std::unordered_map<std::string, uint64_t> &counts() const { return counts_; }
  // Lost events on `cpu` (counted), and whether the kernel also dropped an
  // unknown number there.
  uint64_t lost(int cpu) const;
  bool lost_unknown(int cpu) const;
  uint64_t total_lost() const;
  // Raw bytes read from the ring buffers.
  uint64_t bytes_read() const { return bytes_read_; }
  int cpus() const { return static_cast<int>(cpus_.size()); }
  tep_handle *tep() const { return tep_; }

 private:
  struct CpuReader {
    int cpu = 0;
    tracefs_cpu *tcpu = nullptr;
    kbuffer *kbuf = nullptr;
    std::deque<uint8_t *> pages;  // read, not yet fully decoded
    bool loaded = false;          // pages.front() is loaded in kbuf
    void *record = nullptr;       // current record in kbuf, or null
    uint64_t ts = 0;
    uint64_t lost = 0;
    bool lost_unknown = false;
    bool check_stats = false;     // a page said "dropped", count not stored
    std::vector<uint32_t> left_out;  // offsets of pages.front()'s events a sink left out
  };

  EventStream() = default;
  Result<size_t> drain_cpu(CpuReader &c);
  Status drain_all();
  void load_next(CpuReader &c);
  void advance(CpuReader &c);
  // Done with c.pages.front(): handed to the page sinks when they wait for
  // the events' verdicts (gate_), then reused.
  void pop_page(CpuReader &c);
  bool left_out_by_a_sink() const;
  Result<size_t> deliver(uint64_t watermark);
  Status end_batch();
  void account_lost(bool all_cpus);
  void report_lost(CpuReader &c, int64_t count);
  uint8_t *take_page();
  void give_page(uint8_t *page);

  StreamInfo info_;
  std::vector<EventSink *> sinks_;
  std::vector<EventSink *> page_sinks_;
  std::vector<EventSink *> event_sinks_;
  std::vector<CpuReader> cpus_;
  tep_handle *tep_ = nullptr;
  std::unique_ptr<CommCache> comms_;
  std::unique_ptr<EventDecoder> decoder_;
  std::vector<uint8_t *> free_pages_;
  std::vector<std::unique_ptr<uint8_t[]>> all_pages_;
  Event scratch_;
  bool mono_clock_ = false;
  bool gate_ = false;
  int data_start_ = 16;  // where a page's events start    // a page sink drops events: pages go on after their events' verdicts
  Status page_error_ = Ok{};  // a page sink's error while handing on a page (reported by deliver)
  bool started_ = false, finished_ = false;
  uint64_t events_ = 0, bytes_read_ = 0;
  std::unordered_map<std::string, uint64_t> counts_;
};

}  // namespace kpp
