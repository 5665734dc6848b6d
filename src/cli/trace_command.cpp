// trace: decoded events from our own tracefs instance, as lines or JSON.
#include <cstdio>

#include "src/cli/commands.h"
#include "src/output/printer_sink.h"
#include "src/stream/session.h"

namespace kpp {

SessionOptions session_options_from(const CliOptions &options) {
  SessionOptions s;
  s.events = options.events;
  s.filter = options.filter;
  s.duration_s = options.duration;
  s.pid_only = options.pid_only;
  s.command = options.command_line;
  return s;
}

void report_session(const SessionSummary &summary, bool quiet) {
  for (const std::string &w : summary.warnings) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
  if (quiet) return;
  std::fprintf(stderr, "%llu events", static_cast<unsigned long long>(summary.events));
  if (summary.interrupted) std::fprintf(stderr, " (interrupted)");
  std::fprintf(stderr, "\n");
}

Status run_trace_command(const CliOptions &options) {
  if (options.events.empty())
    return Error("trace needs events to enable", "give them with -e GROUP:EVENT (globs allowed), see 'kprobe-probe -l'");
  PrinterSink printer(options.json ? PrintFormat::Json : PrintFormat::Text, stdout);
  auto summary = run_session(session_options_from(options), {&printer});
  if (!summary) return std::move(summary).error();
  report_session(*summary, options.quiet);
  return Ok{};
}

}  // namespace kpp
