// report: a trace.dat's events, offline, in trace's text or JSON form.
#include <cstdio>

#include "src/cli/commands.h"
#include "src/cli/probe_target.h"
#include "src/output/folded_sink.h"
#include "src/output/printer_sink.h"
#include "src/probes/probe_engine.h"
#include "src/stack/stack_symbolizer.h"
#include "src/stream/sink_chain.h"
#include "src/tracedat/tracedat_options.h"
#include "src/tracedat/tracedat_reader.h"
#include "src/tracedat/user_stack_table.h"
#include "util/crash_note.h"

namespace kpp {

namespace {

// The file's DWARF-unwound user stacks (none: an empty table). A damaged
// table is left out whole, and said: a stack shown must be the one
// recorded. The events are still shown, if libtracecmd can read them.
UserStackTable recorded_user_stacks(const std::string &path) {
  auto payload = tracedat::find_tracedat_option(path, tracedat::kOptionUserStacks);
  if (payload && !*payload) return UserStackTable{};
  auto table = payload ? UserStackTable::decode(**payload) : Result<UserStackTable>(std::move(payload).error());
  if (table) return std::move(*table);
  std::fprintf(stderr, "kprobe-probe: warning: %s: the recorded user stacks are left out (%s)\n", path.c_str(),
               table.error().message.c_str());
  return UserStackTable{};
}

}  // namespace

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
  // Stacks recorded with --stack are joined to their events; the probed
  // binaries' frames are named when their probes still exist (the file's
  // processes are gone, its kernel may be another boot's: see StackSource).
  SinkChainOptions chain_options;
  chain_options.stacks.mode = StackMode::AsTheyCome;
  StackSymbolizer symbolizer(StackSource::File, {}, debug_open_options(options));
  symbolizer.set_probe_source([] {
    auto engine = ProbeEngine::open();
    auto defs = engine ? engine->list() : Result<std::vector<TraceDefinition>>(std::move(engine).error());
    return defs ? std::move(*defs) : std::vector<TraceDefinition>{};
  });
  chain_options.stacks.symbolizer = &symbolizer;
  FoldedSink folded(stdout);  // --folded: the stacks counted, written at the end
  // `record --stack`'s DWARF-unwound user stacks, kept apart from the pages.
  RecordedUserStacks with_user_stacks(recorded_user_stacks(options.input), options.folded ? static_cast<EventSink *>(&folded) : &printer);
  SinkChain chain(std::move(chain_options), {&with_user_stacks});
  auto name_buffer = [&](const std::string &name) {
    if (!options.json && !options.folded) std::fprintf(stdout, "Buffer: %s\n", name.c_str());
  };
  // If libtracecmd crashes on a damaged file, the supervisor names the file
  // and the reader (src/cli/supervisor.h).
  note_reader("the trace.dat reader (libtracecmd)");
  note_file_opened(options.input);
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
