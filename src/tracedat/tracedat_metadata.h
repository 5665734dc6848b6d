// Everything a trace.dat carries besides the ring-buffer pages, read from
// the live system. Internal to kpp_tracedat; separate so the writer's
// layout code does no file system work.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "src/stream/event_sink.h"
#include "util/result.h"

namespace kpp::tracedat {

struct FormatFile {
  std::string event;  // event name (for messages)
  std::string text;   // the format file
};

struct SystemFormats {
  std::string system;
  std::vector<FormatFile> events;
};

struct Metadata {
  std::string header_page;                // events/header_page
  std::string header_event;               // events/header_event
  std::vector<FormatFile> ftrace_formats; // events/ftrace/*/format
  std::vector<SystemFormats> systems;     // events/<system>/*/format
  std::string trace_clock;                // instance trace_clock file ("local [mono] ...")
  std::string uname;                      // "sysname nodename release version machine"
  // Read at the end of the recording (they change while it runs).
  std::string kallsyms;
  std::string printk_formats;
  std::string cmdlines;
  // Per CPU, "CPU: N\n" and the instance's per_cpu/cpuN/stats (entries,
  // overrun, commit overrun, bytes, oldest event ts, now ts, dropped and read
  // events), read after the last page, as trace-cmd reads them.
  std::vector<std::string> cpu_stats;
  // kprobe-probe's own: the DWARF-unwound user stacks (user_stack_table.h),
  // an option trace-cmd skips; empty: none.
  std::string user_stacks;
};

// Reads the format side (headers, ftrace and the stream's systems' formats,
// trace clock, uname). Errors name the file that could not be read.
Status read_formats(const StreamInfo &info, Metadata &meta);

// Reads kallsyms (if `with_kallsyms`), printk_formats, saved_cmdlines and
// the per-CPU stats. kallsyms or stats failing is not an error (kallsyms is
// only needed for kernel symbols; the file is complete without stats).
Status read_late_metadata(const StreamInfo &info, bool with_kallsyms, Metadata &meta);

}  // namespace kpp::tracedat
