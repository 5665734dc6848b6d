#include "src/tracedat/tracedat_reader.h"

#include "src/stream/probe_shapes.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "src/tracefs/tracefs_cxx.h"  // before trace-cmd.h: C++-safe tracefs.h
#include <trace-cmd/trace-cmd.h>

#include "src/stream/event_decoder.h"
#include "src/tracedat/tracedat_options.h"
#include "src/tracedat/trial_read.h"
#include "util/strings.h"

// libtracecmd warns of each option it does not know ("unknown option
// 19280") as it opens a file: kprobe-probe's own options are known here
// (tracedat_options.h), not there, and are no news to the user. Its warning
// function is weak so that a program can take it over; every other
// warning goes out as libtracecmd prints it.
// (libtraceevent's event-utils.h, which declares tep_vprint, defines min
// and max as macros: not for C++.)
// libtracecmd exports the page size of a file's buffer but its header
// (3.1.6) does not declare it; tep_get_page_size is the machine's, not the file's.
extern "C" int tracecmd_page_size(tracecmd_input *handle);
extern "C" int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt, va_list ap);
extern "C" void tracecmd_warning(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bool ours = false;
  if (std::strcmp(fmt, "unknown option %d") == 0) {
    va_list copy;
    va_copy(copy, ap);
    ours = va_arg(copy, int) == kpp::tracedat::kOptionUserStacks;
    va_end(copy);
  }
  if (!ours) tep_vprint("libtracecmd", TEP_LOG_WARNING, true, fmt, ap);
  va_end(ap);
}

namespace kpp {

namespace {

// Closes the libtracecmd handle on every return path.
struct InputCloser {
  tracecmd_input *handle;
  ~InputCloser() { tracecmd_close(handle); }
};

// pid -> comm from the file's cmdlines. tep's own lookup searches on every
// call; events of one process come in long runs, so cache.
class FileComms {
 public:
  explicit FileComms(tep_handle *tep) : tep_(tep) {}
  const std::string &comm(int pid) {
    auto it = cache_.find(pid);
    if (it != cache_.end()) return it->second;
    const char *c = tep_data_comm_from_pid(tep_, pid);
    // libtraceevent answers "<...>" for pids the file does not name.
    return cache_.emplace(pid, pid == 0 ? "<idle>" : c ? c : "<...>").first->second;
  }

 private:
  tep_handle *tep_;
  std::unordered_map<int, std::string> cache_;
};

// libtracecmd says little on failure; tell a missing file from a bad one.
Error open_error(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error("cannot open " + path + ": " + std::strerror(errno));
  char magic[10] = {};
  ssize_t n = ::read(fd, magic, sizeof magic);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof magic) || std::memcmp(magic, "\x17\x08\x44tracing", 10) != 0)
    return Error(path + " is not a trace.dat (no trace-cmd magic at its start)");
  return Error("libtracecmd cannot read " + path + " (truncated, or a version or compression it does not know)",
               "check it with 'trace-cmd dump --summary " + path + "'");
}

}  // namespace

namespace {

// State for libtracecmd's per-record callback.
struct ReadState {
  EventSink *sink;
  EventDecoder decoder;
  FileComms comms;
  Event event;
  TraceDatSummary sum;
  std::vector<bool> lost_unknown;
  uint64_t page_size = 0;          // the file's ring-buffer pages
  uint64_t overrunning_events = 0;  // skipped: their length runs past their page
  Status failure = Ok{};

  void note_lost(int cpu, long long missed) {
    auto c = static_cast<size_t>(cpu);
    if (c >= sum.lost_per_cpu.size()) {
      sum.lost_per_cpu.resize(c + 1, 0);
      lost_unknown.resize(c + 1, false);
    }
    // > 0: the page stored the count; < 0: dropped, count unknown.
    if (missed > 0) sum.lost_per_cpu[c] += static_cast<uint64_t>(missed);
    else lost_unknown[c] = true;
    sink->on_lost(cpu, missed > 0 ? missed : -1);
  }
};

// kbuffer checks a page's commit size against the page, but not the
// length of each event in it: a damaged length would have the decoder read
// past the page. libtracecmd reads pages at page-aligned offsets, so a
// record's offset within its page is its offset modulo the page size.
bool fits_its_page(const tep_record &rec, uint64_t page_size) {
  if (page_size == 0) return true;  // no page size known: nothing to check against
  if (rec.size < 0 || rec.record_size < rec.size) return false;
  return rec.offset % page_size + static_cast<uint64_t>(rec.record_size) <= page_size;
}

int on_record(tracecmd_input *, tep_record *rec, int, void *data) {
  auto *st = static_cast<ReadState *>(data);
  if (!fits_its_page(*rec, st->page_size)) {
    ++st->overrunning_events;
    return 0;
  }
  if (rec->missed_events && rec->cpu >= 0) st->note_lost(rec->cpu, rec->missed_events);
  st->decoder.decode(rec->data, rec->size, rec->ts, rec->cpu, st->event);
  st->event.comm = st->comms.comm(st->event.pid);
  st->sum.cpus = std::max(st->sum.cpus, rec->cpu + 1);
  ++st->sum.events;
  st->failure = st->sink->on_event(st->event);
  return st->failure ? 0 : 1;  // non-zero stops the iteration
}

}  // namespace

// Hands one buffer's events to the sink, in timestamp order across its CPUs
// (as the live stream delivers them). The decoder and comms follow the
// buffer's own formats.
Status read_buffer(tracecmd_input *buffer, ReadState &st) {
  tep_handle *tep = tracecmd_get_tep(buffer);
  st.decoder = EventDecoder(tep, nullptr);
  st.comms = FileComms(tep);
  st.page_size = static_cast<uint64_t>(std::max(tracecmd_page_size(buffer), 0));
  tracecmd_iterate_events(buffer, nullptr, 0, on_record, &st);
  return std::move(st.failure);
}

Result<TraceDatSummary> read_tracedat(const std::string &path, EventSink &sink, const BufferStart &on_buffer) {
  if (Status s = tracedat::trial_read(path); !s) return std::move(s).error();
  tracecmd_input *handle = tracecmd_open(path.c_str(), 0);
  if (!handle) return open_error(path);
  InputCloser closer{handle};
  tep_handle *tep = tracecmd_get_tep(handle);
  ReadState st{&sink, EventDecoder(tep, nullptr), FileComms(tep), Event{}, TraceDatSummary{}, {}, 0, 0, Ok{}};
  // The sink learns the file's probe events (a SinkChain recognises the
  // entry-value companions among them, as the live session does).
  StreamInfo info;
  info.probes = probe_shapes_of(tep);
  if (Status started = sink.on_start(info); !started) return std::move(started).error();
  if (Status s = read_buffer(handle, st); !s) return std::move(s).error();
  const int instances = tracecmd_buffer_instances(handle);
  if (instances > 0) st.sum.buffers.emplace_back("", st.sum.events);
  for (int i = 0; i < instances; ++i) {
    const char *name = tracecmd_buffer_instance_name(handle, i);
    tracecmd_input *buffer = tracecmd_buffer_instance_handle(handle, i);
    if (!buffer)
      return Error("libtracecmd cannot open buffer '" + std::string(name ? name : "?") + "' of " + path,
                   "check it with 'trace-cmd dump --options " + path + "'");
    InputCloser buffer_closer{buffer};
    const uint64_t before = st.sum.events;
    if (on_buffer) on_buffer(name ? name : "");
    st.failure = Ok{};
    if (Status s = read_buffer(buffer, st); !s) return std::move(s).error();
    st.sum.buffers.emplace_back(name ? name : "", st.sum.events - before);
  }
  TraceDatSummary &sum = st.sum;
  for (size_t c = 0; c < sum.lost_per_cpu.size(); ++c) {
    if (sum.lost_per_cpu[c])
      sum.warnings.push_back("lost " + std::to_string(sum.lost_per_cpu[c]) + " events on cpu" + std::to_string(c));
    else if (st.lost_unknown[c])
      sum.warnings.push_back("lost events on cpu" + std::to_string(c) + " (the recording did not say how many)");
  }
  if (st.overrunning_events)
    sum.warnings.push_back(path + " is damaged: " +
                           (st.overrunning_events == 1 ? "1 event left out, longer"
                                                       : std::to_string(st.overrunning_events) +
                                                             " events left out, each longer") +
                           " than the rest of its ring-buffer page");
  if (Status fin = sink.on_finish(); !fin) return std::move(fin).error();
  return std::move(sum);
}

}  // namespace kpp
