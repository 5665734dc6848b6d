// Command-line options, parsed into plain data; main() dispatches on them.
// The probe options are perf probe's, short and long, so a perf probe
// command line works with the program's name changed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/util/result.h"

namespace kpp {

struct CliOptions {
  enum class Command { Probe, Demo, Trace, Record, Report, Live, Hist, Export, Help, Version };
  Command command = Command::Probe;

  // probe (perf probe's options)
  std::vector<std::string> add;          // -a/--add, and a bare spec
  std::vector<std::string> definition;   // -D/--definition
  std::vector<std::string> del;          // -d/--del
  std::optional<std::string> list;       // -l/--list[=PATTERN] ("" = all)
  std::optional<std::string> funcs;      // -F/--funcs[=GLOB] ("" = all but _*)
  bool sdt = false;                      // --sdt: -F lists SDT markers (src/sdt)
  std::vector<std::string> vars;         // -V/--vars PROBEPOINT
  std::vector<std::string> lines;        // -L/--line LINE-RANGE
  bool externs = false;                  // --externs (-V)
  bool range = false;                    // --range (-V)
  std::string exec;                      // -x/--exec
  std::string vmlinux;                   // -k/--vmlinux
  std::string module;                    // -m/--module
  std::string source;                    // -s/--source
  std::vector<std::pair<std::string, std::string>> prefix_map;  // --prefix-map OLD=NEW, in order
  bool demangle = true;                  // --demangle/--no-demangle (programs)
  bool demangle_kernel = false;          // --demangle-kernel
  bool force = false;                    // -f/--force
  bool dry_run = false;                  // -n/--dry-run
  bool quiet = false;                    // -q/--quiet
  int verbose = 0;                       // -v/--verbose
  size_t max_probes = 128;               // --max-probes
  unsigned max_items = 8;                // --max-items: elements of a sequence fetched
  bool no_inlines = false;               // --no-inlines
  bool no_cache = false;                 // --no-cache
  bool fprobe = false;                   // --fprobe (kernel): fprobe events instead of kprobes
  bool json = false;                     // --json (list, trace)
  std::optional<unsigned> maxactive;     // --maxactive N (kretprobes)
  std::vector<std::string> enable;       // --enable GLOB
  std::vector<std::string> disable;      // --disable GLOB
  // -p/--pid PID (repeatable): the running processes probed (-x resolved
  // in their maps and root) and, for the sessions, the only ones traced.
  std::vector<int> pids;
  bool target_ns = false;                // the pid came from --target-ns=PID (perf's spelling; probe commands)

  // trace / record
  std::vector<std::string> events;       // -e/--event GLOB
  std::string output = "trace.dat";      // -o/--output
  bool output_given = false;             // -o was given (live records only then)
  double duration = 0;                   // --duration S
  std::string filter;                    // --filter EXPR
  bool pid_only = false;                 // --pid-only
  bool children = false;                 // --children: with -p, the targets' children too (event-fork)
  std::vector<std::string> command_line; // after "--"
  int file_version = 6;                  // --file-version 6|7 (record)
  std::string compression;               // --compression zstd|zlib|none (record, version 7)
  bool stack = false;                    // --stack (trace, record, live): kernel and user stacks
  bool user_stack_fp = false;            // --user-stack=fp: frame pointers (default dwarf)
  bool user_stack_given = false;
  size_t stack_window = 8192;            // --stack-window BYTES: user stack copied for DWARF unwinding
  bool stack_window_given = false;
  bool folded = false;                   // --folded (trace --stack, report): folded stacks and counts

  // hist
  std::vector<std::string> hist_by;      // --by FIELD[.MOD] (repeatable)
  std::vector<std::string> hist_sum;     // --sum FIELD (repeatable)
  std::string hist_latency;              // --latency FUNC

  // live
  bool keep = false;                      // --keep: leave the probes live added

  // report
  std::string input;                     // the trace.dat to read

  // export
  std::string listen;                    // --listen [HOST:]PORT (HOST defaults to 127.0.0.1)
  bool listen_name = false;              // --listen-name: HOST may be a name (else numeric only)
  std::vector<std::string> hist;         // --hist ARG: log2 histograms of these fields
};

// Parses argv. Errors name the option and what is wrong with its value.
Result<CliOptions> parse_cli(int argc, char **argv);

// The --help text.
const char *usage_text();

}  // namespace kpp
