#include "src/stream/event_stream.h"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>

#include <traceevent/event-parse.h>

#include "src/stream/probe_shapes.h"
#include "src/stream/stack_join.h"
#include "util/monotonic_clock.h"
extern "C" {  // kbuffer.h has no C++ guard
#include <traceevent/kbuffer.h>
}
#include "src/stream/page_filter.h"
#include "src/tracefs/tracefs_cxx.h"

namespace kpp {

namespace {
constexpr uint64_t kNoWatermark = std::numeric_limits<uint64_t>::max();
}  // namespace

Result<std::unique_ptr<EventStream>> EventStream::open(const TraceInstance &instance,
                                                       std::vector<EventSink *> sinks, bool stacks) {
  if (!instance.is_open()) return Error("cannot open event stream: trace instance is closed");
  std::unique_ptr<EventStream> s(new EventStream());
  s->sinks_ = std::move(sinks);
  for (EventSink *k : s->sinks_) {
    if (k->wants_pages()) s->page_sinks_.push_back(k);
    if (k->wants_events()) s->event_sinks_.push_back(k);
    if (k->wants_pages() && k->drops_events()) s->gate_ = true;
  }

  // One tep for the whole stream, from the local format files of the
  // systems we enabled: no tracefs reads per event.
  std::vector<std::string> systems = instance.enabled_systems();
  std::vector<const char *> names;
  for (const auto &sys : systems) names.push_back(sys.c_str());
  if (stacks) names.push_back(kStackSystem);
  names.push_back(nullptr);
  s->tep_ = tracefs_local_events_system(instance.tracing_dir().c_str(), names.data());
  if (!s->tep_)
    return Error("cannot load event formats from " + instance.tracing_dir() + "/events: " +
                 std::strerror(errno));
  s->comms_ = std::make_unique<CommCache>(instance.tracing_dir());
  s->decoder_ = std::make_unique<EventDecoder>(s->tep_, s->comms_.get());

  long ncpu = sysconf(_SC_NPROCESSORS_CONF);
  if (ncpu < 1) ncpu = 1;
  int page_size = 0, opened = 0;
  s->cpus_.resize(static_cast<size_t>(ncpu));
  for (int cpu = 0; cpu < ncpu; ++cpu) {
    CpuReader &c = s->cpus_[static_cast<size_t>(cpu)];
    c.cpu = cpu;
    c.tcpu = tracefs_cpu_open(instance.raw(), cpu, true);
    if (!c.tcpu) continue;  // offline CPU: no buffer to read
    ++opened;
    page_size = tracefs_cpu_read_size(c.tcpu);
    c.kbuf = tep_kbuffer(s->tep_);
  }
  if (opened == 0)
    return Error("cannot open any per-CPU buffer of instance '" + instance.name() + "': " +
                 std::strerror(errno));
  if (page_size <= 0) page_size = static_cast<int>(sysconf(_SC_PAGESIZE));

  std::string clock = instance.clock();
  s->mono_clock_ = clock == "mono";
  // A page's header: a u64 time stamp and the kernel's long commit word.
  int long_size = tep_get_long_size(s->tep_);
  s->data_start_ = 8 + (long_size > 0 ? long_size : static_cast<int>(sizeof(long)));
  s->info_ = StreamInfo{instance.tracing_dir(), instance.name(), instance.raw(), systems,
                        static_cast<int>(ncpu), page_size, clock, probe_shapes_of(s->tep_)};
  return s;
}

EventStream::~EventStream() {
  close();
  if (tep_) tep_free(tep_);
}

void EventStream::close() {
  for (CpuReader &c : cpus_) {
    if (c.tcpu) tracefs_cpu_close(c.tcpu);
    c.tcpu = nullptr;
    if (c.kbuf) kbuffer_free(c.kbuf);
    c.kbuf = nullptr;
    for (uint8_t *p : c.pages) give_page(p);
    c.pages.clear();
    c.loaded = false;
    c.record = nullptr;
  }
}

Status EventStream::start() {
  if (started_) return Ok{};
  started_ = true;
  for (EventSink *k : sinks_) {
    Status st = k->on_start(info_);
    if (!st) return st;
  }
  return Ok{};
}

Status EventStream::finish() {
  if (finished_) return Ok{};
  finished_ = true;
  Status first = Ok{};
  for (EventSink *k : sinks_) {
    Status st = k->on_finish();
    if (!st && first) first = std::move(st);
  }
  return first;
}

uint8_t *EventStream::take_page() {
  if (!free_pages_.empty()) {
    uint8_t *p = free_pages_.back();
    free_pages_.pop_back();
    return p;
  }
  all_pages_.push_back(std::make_unique<uint8_t[]>(static_cast<size_t>(info_.page_size)));
  return all_pages_.back().get();
}

void EventStream::give_page(uint8_t *page) { free_pages_.push_back(page); }

Result<size_t> EventStream::drain_cpu(CpuReader &c) {
  size_t n = 0;
  while (c.tcpu) {
    uint8_t *page = take_page();
    int r = tracefs_cpu_read(c.tcpu, page, true);
    if (r <= 0) {
      give_page(page);
      if (r < 0 && errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK)
        return Error("cannot read the ring buffer of cpu" + std::to_string(c.cpu) + ": " +
                     std::strerror(errno));
      break;
    }
    // A short read still hands over a whole page: the rest is zero.
    if (r < info_.page_size) std::memset(page + r, 0, static_cast<size_t>(info_.page_size - r));
    bytes_read_ += static_cast<uint64_t>(info_.page_size);
    for (EventSink *k : gate_ ? std::vector<EventSink *>{} : page_sinks_) {
      Status st = k->on_page(c.cpu, std::span<const uint8_t>(page, static_cast<size_t>(info_.page_size)));
      if (!st) {
        give_page(page);
        return std::move(st).error();
      }
    }
    c.pages.push_back(page);
    ++n;
  }
  return n;
}

Status EventStream::drain_all() {
  for (CpuReader &c : cpus_) {
    auto r = drain_cpu(c);
    if (!r) return std::move(r).error();
  }
  return Ok{};
}

// Makes c.record the next unread record of c, loading queued pages as needed.
void EventStream::load_next(CpuReader &c) {
  while (!c.record && !c.pages.empty()) {
    if (!c.loaded) {
      if (kbuffer_load_subbuffer(c.kbuf, c.pages.front()) < 0) {
        pop_page(c);
        continue;
      }
      c.loaded = true;
      int missed = kbuffer_missed_events(c.kbuf);
      if (missed > 0) report_lost(c, missed);
      else if (missed < 0) c.check_stats = true;  // counted from stats after this poll
      unsigned long long ts = 0;
      c.record = kbuffer_read_event(c.kbuf, &ts);
      c.ts = ts;
    }
    if (!c.record) pop_page(c);
  }
}

void EventStream::pop_page(CpuReader &c) {
  uint8_t *page = c.pages.front();
  if (gate_ && page_error_) {
    std::span<uint8_t> bytes(page, static_cast<size_t>(info_.page_size));
    // A page laid out otherwise than the filter knows goes on whole.
    if (!c.left_out.empty()) (void)pad_out_events(bytes, data_start_, c.left_out);
    for (EventSink *k : page_sinks_)
      if (Status st = k->on_page(c.cpu, bytes); !st && page_error_) page_error_ = std::move(st);
  }
  c.left_out.clear();
  give_page(page);
  c.pages.pop_front();
  c.loaded = false;
}

bool EventStream::left_out_by_a_sink() const {
  for (EventSink *k : event_sinks_)
    if (k->drops_events() && k->dropped_last()) return true;
  return false;
}

void EventStream::advance(CpuReader &c) {
  unsigned long long ts = 0;
  c.record = kbuffer_next_event(c.kbuf, &ts);
  c.ts = ts;
  if (!c.record) {
    pop_page(c);
    load_next(c);
  }
}

Result<size_t> EventStream::deliver(uint64_t watermark) {
  size_t n = 0;
  for (CpuReader &c : cpus_) load_next(c);
  for (;;) {
    CpuReader *best = nullptr;
    for (CpuReader &c : cpus_)
      if (c.record && (!best || c.ts < best->ts)) best = &c;
    if (!best || best->ts > watermark) break;
    int size = kbuffer_event_size(best->kbuf);
    const std::string &key = decoder_->event_key(best->record, size);
    if (!key.empty()) ++counts_[key];
    ++events_;
    if (!event_sinks_.empty()) {
      decoder_->decode(best->record, size, best->ts, best->cpu, scratch_);
      for (EventSink *k : event_sinks_) {
        Status st = k->on_event(scratch_);
        if (!st) return std::move(st).error();
      }
      if (gate_ && left_out_by_a_sink()) best->left_out.push_back(static_cast<uint32_t>(kbuffer_curr_offset(best->kbuf)));
    }
    ++n;
    advance(*best);
    if (!page_error_) return std::move(page_error_).error();
  }
  return n;
}

void EventStream::report_lost(CpuReader &c, int64_t count) {
  if (count > 0) c.lost += static_cast<uint64_t>(count);
  else c.lost_unknown = true;
  for (EventSink *k : sinks_) k->on_lost(c.cpu, count);
}

namespace {
// overrun + dropped events from a per_cpu/cpuN/stats text, or -1.
int64_t lost_in_stats(const char *text) {
  if (!text) return -1;
  int64_t total = 0;
  bool found = false;
  for (const char *key : {"overrun: ", "dropped events: "}) {
    if (const char *p = std::strstr(text, key)) {
      total += std::strtoll(p + std::strlen(key), nullptr, 10);
      found = true;
    }
  }
  return found ? total : -1;
}
}  // namespace

void EventStream::account_lost(bool all_cpus) {
  for (CpuReader &c : cpus_) {
    if (!c.tcpu || !(all_cpus || c.check_stats)) continue;
    std::string file = "per_cpu/cpu" + std::to_string(c.cpu) + "/stats";
    char *text = tracefs_instance_file_read(info_.instance, file.c_str(), nullptr);
    int64_t total = lost_in_stats(text);
    free(text);
    if (total > static_cast<int64_t>(c.lost)) report_lost(c, total - static_cast<int64_t>(c.lost));
    else if (total < 0 && c.check_stats) report_lost(c, -1);
    c.check_stats = false;
  }
}

Result<size_t> EventStream::poll(int timeout_ms, const std::vector<int> &wake_fds) {
  if (timeout_ms > 0) {
    std::vector<pollfd> pfds;
    for (int fd : wake_fds)
      if (fd >= 0) pfds.push_back(pollfd{fd, POLLIN, 0});
    // The ring buffers only wake pollers when buffer_percent full, so this is
    // a timed sleep that a signal or a wake fd (a child's pidfd, the
    // terminal) cuts short.
    ::poll(pfds.data(), pfds.size(), timeout_ms);
  }
  uint64_t watermark = mono_clock_ ? monotonic_ns() : kNoWatermark;
  Status st = drain_all();
  if (!st) return std::move(st).error();
  auto n = deliver(watermark);
  if (!n) return n;
  account_lost(false);
  // Every poll ends a batch, empty ones too: an event held for what comes
  // apart from the ring (a DWARF user stack, told once the sampling thread
  // has read past it) is asked again then, not only when more events come.
  if (Status b = end_batch(); !b) return std::move(b).error();
  return n;
}

Status EventStream::end_batch() {
  for (EventSink *k : sinks_)
    if (Status st = k->on_batch_end(); !st) return st;
  return Ok{};
}

Result<size_t> EventStream::flush() {
  Status st = drain_all();
  if (!st) return std::move(st).error();
  auto n = deliver(kNoWatermark);
  account_lost(true);
  if (n && *n) {
    if (Status b = end_batch(); !b) return std::move(b).error();
  }
  return n;
}

uint64_t EventStream::lost(int cpu) const {
  return cpu >= 0 && cpu < cpus() ? cpus_[static_cast<size_t>(cpu)].lost : 0;
}

bool EventStream::lost_unknown(int cpu) const {
  return cpu >= 0 && cpu < cpus() && cpus_[static_cast<size_t>(cpu)].lost_unknown;
}

uint64_t EventStream::total_lost() const {
  uint64_t t = 0;
  for (const CpuReader &c : cpus_) t += c.lost;
  return t;
}

}  // namespace kpp
