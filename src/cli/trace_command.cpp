// trace and record: events from our own tracefs instance, as decoded lines
// or JSON (trace), or as raw ring-buffer pages in a trace.dat (record).
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "src/cli/commands.h"
#include "src/cli/session_report.h"
#include "src/output/folded_sink.h"
#include "src/output/printer_sink.h"
#include "src/stream/session.h"
#include "src/tracedat/tracedat_writer.h"

namespace kpp {

namespace {

Status require_events(const CliOptions &options, const char *command) {
  if (!options.events.empty()) return Ok{};
  return Error(std::string(command) + " needs events to enable",
               "give them with -e GROUP:EVENT (globs allowed), see 'kprobe-probe -l'");
}

// trace -o FILE: a regular file of ours, never through a symlink.
Result<std::FILE *> open_output(const std::string &path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return Error("cannot write " + path + ": " + std::strerror(errno));
  std::FILE *f = fdopen(fd, "w");
  if (!f) {
    ::close(fd);
    return Error("cannot write " + path + ": " + std::strerror(errno));
  }
  return f;
}

}  // namespace

Result<int> run_record_command(const CliOptions &options) {
  if (Status s = require_events(options, "record"); !s) return std::move(s).error();
  TraceDatOptions file;
  file.file_version = options.file_version;
  file.compression = options.compression;
  // DWARF-unwound user stacks are in no page: the file keeps them apart.
  file.user_stacks = options.stack && !options.user_stack_fp;
  auto writer = TraceDatWriter::create(options.output, file);
  if (!writer) return std::move(writer).error();
  for (const std::string &w : (*writer)->warnings()) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
  auto summary = run_session(session_options_from(options, CommandOutput::Inherit), {writer->get()});
  if (!summary) {
    Error e = std::move(summary).error();
    // A write error stopped recording; the file was finished from what was kept.
    if ((*writer)->pages() && (*writer)->finish())
      e.hint = options.output + " holds the " + std::to_string((*writer)->pages() - (*writer)->dropped_pages()) +
               " pages recorded before: trace-cmd report " + options.output;
    return e;
  }
  report_session(*summary, options.quiet);
  if (!options.quiet)
    std::fprintf(stderr, "recorded to %s (open it with 'trace-cmd report %s')\n", options.output.c_str(),
                 options.output.c_str());
  return exit_status_of(*summary);
}

Result<int> run_trace_command(const CliOptions &options) {
  if (Status s = require_events(options, "trace"); !s) return std::move(s).error();
  std::FILE *out = stdout;
  if (options.output_given) {
    auto f = open_output(options.output);
    if (!f) return std::move(f).error();
    out = *f;
  }
  // JSON on stdout is for a program to read: the command's own output must
  // not interleave it, so the command writes to our stderr instead.
  CommandOutput command_output =
      options.json && out == stdout ? CommandOutput::ToStderr : CommandOutput::Inherit;
  PrinterSink printer(options.json ? PrintFormat::Json : PrintFormat::Text, out, options.verbose > 0);
  FoldedSink folded(out);  // --folded: the stacks counted, written at the end
  EventSink *sink = options.folded ? static_cast<EventSink *>(&folded) : &printer;
  auto summary = run_session(session_options_from(options, command_output), {sink});
  if (out != stdout && std::fclose(out) != 0 && summary)
    return Error("cannot write " + options.output + ": " + std::strerror(errno));
  if (printer.output_closed()) {
    // `trace | head`: the reader has what it wanted. Nothing more goes to
    // the pipe (what stdio still holds is dropped at exit, not a SIGPIPE).
    signal(SIGPIPE, SIG_IGN);
    if (!summary) return std::move(summary).error();
    return 0;
  }
  if (!summary) return std::move(summary).error();
  report_session(*summary, options.quiet);
  return exit_status_of(*summary);
}

}  // namespace kpp
