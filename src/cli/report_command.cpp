// report: a trace.dat's events, offline, in trace's text or JSON form.
#include <cstdio>

#include "src/cli/commands.h"
#include "src/output/printer_sink.h"
#include "src/stream/sink_chain.h"
#include "src/tracedat/tracedat_reader.h"

namespace kpp {

Status run_report_command(const CliOptions &options) {
  // Reports are often millions of lines into a pipe or file: write in big blocks.
  static char buffer[1 << 20];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  PrinterSink printer(options.json ? PrintFormat::Json : PrintFormat::Text, stdout);
  // The same chain a live session has: the file's entry-value companions are
  // recognised from its formats and joined into their probes. A trace-cmd
  // file's instance buffers follow the top level's events, each under a line
  // naming it (as `trace-cmd report --stat` names them); JSON lines stay
  // events only.
  SinkChain chain(SinkChainOptions{}, {&printer});
  auto name_buffer = [&](const std::string &name) {
    if (!options.json) std::fprintf(stdout, "Buffer: %s\n", name.c_str());
  };
  auto summary = read_tracedat(options.input, chain, name_buffer);
  if (!summary) return std::move(summary).error();
  for (const std::string &w : summary->warnings) std::fprintf(stderr, "kprobe-probe: warning: %s\n", w.c_str());
  if (options.quiet) return Ok{};
  std::fprintf(stderr, "%llu events", static_cast<unsigned long long>(chain.shown()));
  for (const auto &[name, events] : summary->buffers)
    std::fprintf(stderr, "%s%s: %llu", &name == &summary->buffers.front().first ? " (" : ", ",
                 name.empty() ? "top level" : ("buffer " + name).c_str(), static_cast<unsigned long long>(events));
  std::fprintf(stderr, "%s\n", summary->buffers.empty() ? "" : ")");
  return Ok{};
}

}  // namespace kpp
