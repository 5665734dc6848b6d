// report: a trace.dat's events, offline, in trace's text or JSON form.
#include <cstdio>

#include "src/cli/commands.h"
#include "src/output/printer_sink.h"
#include "src/stream/sink_chain.h"
#include "src/tracedat/tracedat_reader.h"

namespace kpp {

namespace {
// The events shown (companions are joined into their probes, not counted).
struct ShownCount : EventSink {
  uint64_t events = 0;
  Status on_event(const Event &) override {
    ++events;
    return Ok{};
  }
};
}  // namespace

Status run_report_command(const CliOptions &options) {
  // Reports are often millions of lines into a pipe or file: write in big blocks.
  static char buffer[1 << 20];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  PrinterSink printer(options.json ? PrintFormat::Json : PrintFormat::Text, stdout);
  // The same chain a live session has: the file's entry-value companions are
  // recognised from its formats and joined into their probes.
  ShownCount shown;
  SinkChain chain(SinkChainOptions{}, {&printer, &shown});
  auto summary = read_tracedat(options.input, chain);
  if (!summary) return std::move(summary).error();
  for (const std::string &w : summary->warnings) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
  if (!options.quiet) std::fprintf(stderr, "%llu events\n", static_cast<unsigned long long>(shown.events));
  return Ok{};
}

}  // namespace kpp
