// trace and record: events from our own tracefs instance, as decoded lines
// or JSON (trace), or as raw ring-buffer pages in a trace.dat (record).
#include <cstdio>

#include "src/cli/commands.h"
#include "src/output/printer_sink.h"
#include "src/stream/session.h"
#include "src/tracedat/tracedat_writer.h"

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

namespace {
Status require_events(const CliOptions &options, const char *command) {
  if (!options.events.empty()) return Ok{};
  return Error(std::string(command) + " needs events to enable",
               "give them with -e GROUP:EVENT (globs allowed), see 'kprobe-probe -l'");
}
}  // namespace

Status run_record_command(const CliOptions &options) {
  if (Status s = require_events(options, "record"); !s) return s;
  TraceDatOptions file;
  file.file_version = options.file_version;
  file.compression = options.compression;
  auto writer = TraceDatWriter::create(options.output, file);
  if (!writer) return std::move(writer).error();
  for (const std::string &w : (*writer)->warnings()) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
  auto summary = run_session(session_options_from(options), {writer->get()});
  if (!summary) return std::move(summary).error();
  report_session(*summary, options.quiet);
  if (!options.quiet) std::fprintf(stderr, "recorded to %s (open it with 'trace-cmd report %s')\n",
                                   options.output.c_str(), options.output.c_str());
  return Ok{};
}

Status run_trace_command(const CliOptions &options) {
  if (Status s = require_events(options, "trace"); !s) return s;
  PrinterSink printer(options.json ? PrintFormat::Json : PrintFormat::Text, stdout);
  auto summary = run_session(session_options_from(options), {&printer});
  if (!summary) return std::move(summary).error();
  report_session(*summary, options.quiet);
  return Ok{};
}

}  // namespace kpp
