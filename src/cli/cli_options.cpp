#include "src/cli/cli_options.h"

#include <getopt.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kpp {

namespace {

enum LongOnly { opt_max_probes = 1000, opt_no_inlines, opt_externs, opt_range, opt_json, opt_duration, opt_filter, opt_pid_only, opt_version, opt_no_cache };

// Options of record/report, numbered apart so the lists above stay as they are.
enum EventsLongOnly { opt_file_version = 1100, opt_compression };
// SDT markers (src/sdt).
enum SdtLongOnly { opt_sdt = 1700 };

// Options of live.
enum LiveLongOnly { opt_keep = 1200 };

// Options of kernel probes.
enum KernelLongOnly { opt_maxactive = 1300, opt_enable, opt_disable };

// Options of kernel probes added later.
enum KernelLongOnly2 { opt_fprobe = 1800 };

// Options of hist.
enum HistLongOnly { opt_by = 1500, opt_sum, opt_latency };

// Options of names and sources.
enum NameLongOnly { opt_demangle = 1400, opt_no_demangle, opt_demangle_kernel, opt_prefix_map };

// Options of stacks.
enum StackLongOnly { opt_stack = 1900 };

// Options of export.
enum ExportLongOnly { opt_listen = 1600, opt_hist };

const option long_options[] = {
    {"add", required_argument, nullptr, 'a'},
    {"del", required_argument, nullptr, 'd'},
    {"list", optional_argument, nullptr, 'l'},
    {"definition", required_argument, nullptr, 'D'},
    {"exec", required_argument, nullptr, 'x'},
    {"vmlinux", required_argument, nullptr, 'k'},
    {"module", required_argument, nullptr, 'm'},
    {"source", required_argument, nullptr, 's'},
    {"force", no_argument, nullptr, 'f'},
    {"dry-run", no_argument, nullptr, 'n'},
    {"quiet", no_argument, nullptr, 'q'},
    {"verbose", no_argument, nullptr, 'v'},
    {"help", no_argument, nullptr, 'h'},
    {"event", required_argument, nullptr, 'e'},
    {"output", required_argument, nullptr, 'o'},
    {"max-probes", required_argument, nullptr, opt_max_probes},
    {"no-inlines", no_argument, nullptr, opt_no_inlines},
    {"funcs", optional_argument, nullptr, 'F'},
    {"sdt", no_argument, nullptr, opt_sdt},
    {"vars", required_argument, nullptr, 'V'},
    {"line", required_argument, nullptr, 'L'},
    {"externs", no_argument, nullptr, opt_externs},
    {"range", no_argument, nullptr, opt_range},
    {"json", no_argument, nullptr, opt_json},
    {"duration", required_argument, nullptr, opt_duration},
    {"filter", required_argument, nullptr, opt_filter},
    {"pid-only", no_argument, nullptr, opt_pid_only},
    {"version", no_argument, nullptr, opt_version},
    {"no-cache", no_argument, nullptr, opt_no_cache},
    {"fprobe", no_argument, nullptr, opt_fprobe},
    {"file-version", required_argument, nullptr, opt_file_version},
    {"compression", required_argument, nullptr, opt_compression},
    {"keep", no_argument, nullptr, opt_keep},
    {"maxactive", required_argument, nullptr, opt_maxactive},
    {"enable", required_argument, nullptr, opt_enable},
    {"disable", required_argument, nullptr, opt_disable},
    {"demangle", no_argument, nullptr, opt_demangle},
    {"no-demangle", no_argument, nullptr, opt_no_demangle},
    {"demangle-kernel", no_argument, nullptr, opt_demangle_kernel},
    {"prefix-map", required_argument, nullptr, opt_prefix_map},
    {"listen", required_argument, nullptr, opt_listen},
    {"hist", required_argument, nullptr, opt_hist},
    {"by", required_argument, nullptr, opt_by},
    {"sum", required_argument, nullptr, opt_sum},
    {"latency", required_argument, nullptr, opt_latency},
    {"stack", no_argument, nullptr, opt_stack},
    {nullptr, 0, nullptr, 0},
};

// The session commands refuse an option that does nothing for them (record
// --json, trace --file-version, ...) instead of ignoring it silently.
// Probe and demo keep their own rules.
const char *command_name(CliOptions::Command c) {
  switch (c) {
    case CliOptions::Command::Trace: return "trace";
    case CliOptions::Command::Record: return "record";
    case CliOptions::Command::Report: return "report";
    case CliOptions::Command::Live: return "live";
    default: return nullptr;
  }
}

bool option_applies(CliOptions::Command c, int opt) {
  static const std::vector<int> common{'q', 'v', 'h', opt_version};
  static const std::vector<int> trace{'e', 'o', opt_json, opt_duration, opt_filter, opt_pid_only, opt_stack};
  static const std::vector<int> record{'e', 'o', opt_duration, opt_filter, opt_pid_only, opt_file_version,
                                       opt_compression, opt_stack};
  static const std::vector<int> report{opt_json};
  // live --add takes the probe options too.
  static const std::vector<int> live{'e', 'o', opt_filter, opt_keep, 'a', 'x', 'k', 'm', 's', 'f', opt_max_probes,
                                     opt_no_inlines, opt_no_cache, opt_maxactive, opt_demangle, opt_no_demangle,
                                     opt_demangle_kernel, opt_prefix_map, opt_fprobe, opt_stack};
  auto has = [&](const std::vector<int> &v) { return std::find(v.begin(), v.end(), opt) != v.end(); };
  if (has(common)) return true;
  switch (c) {
    case CliOptions::Command::Trace: return has(trace);
    case CliOptions::Command::Record: return has(record);
    case CliOptions::Command::Report: return has(report);
    case CliOptions::Command::Live: return has(live);
    default: return true;
  }
}

std::string option_text(int opt) {
  for (const option *o = long_options; o->name; ++o)
    if (o->val == opt) return std::string("--") + o->name;
  return std::string("-") + static_cast<char>(opt);
}

Status check_option_scope(CliOptions::Command c, const std::vector<int> &seen) {
  const char *name = command_name(c);
  if (!name) return Ok{};
  for (int opt : seen)
    if (!option_applies(c, opt))
      return Error(option_text(opt) + " does not apply to '" + name + "'", "see 'kprobe-probe --help' for what it takes");
  return Ok{};
}

std::optional<CliOptions::Command> subcommand(const char *word) {
  if (!std::strcmp(word, "demo")) return CliOptions::Command::Demo;
  if (!std::strcmp(word, "trace")) return CliOptions::Command::Trace;
  if (!std::strcmp(word, "record")) return CliOptions::Command::Record;
  if (!std::strcmp(word, "report")) return CliOptions::Command::Report;
  if (!std::strcmp(word, "live")) return CliOptions::Command::Live;
  if (!std::strcmp(word, "export")) return CliOptions::Command::Export;
  if (!std::strcmp(word, "hist")) return CliOptions::Command::Hist;
  return std::nullopt;
}

// Whether the option word `arg` ("-v", "-vq", "--verbose") is made of flags
// alone: no letter of it takes a value.
bool flags_only(const char *arg, const char *shorts) {
  if (arg[1] == '-') {
    for (const option *o = long_options; o->name; ++o)
      if (!std::strcmp(arg + 2, o->name)) return o->has_arg == no_argument;
    return false;
  }
  for (const char *c = arg + 1; *c; ++c) {
    const char *spec = std::strchr(shorts, *c);
    if (!spec || spec[1] == ':') return false;
  }
  return true;
}

// Where the subcommand word is: first, or after flags ("kprobe-probe -v
// trace ..." as "trace -v ..."); argc when there is none. After an option
// with a value it is not looked for: "-x prog live" probes a function
// named live, as it always has.
int subcommand_at(int argc, char **argv, const char *shorts) {
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (arg[0] != '-' || arg[1] == '\0') return subcommand(arg) ? i : argc;
    if (!flags_only(arg, shorts)) return argc;
  }
  return argc;
}

constexpr const char *kShortOptions = "+a:d:l::D:x:k:m:s:fnqvhe:o:F::V:L:";

}  // namespace

Result<CliOptions> parse_cli(int argc, char **argv) {
  CliOptions o;
  int at = subcommand_at(argc, argv, kShortOptions);
  if (at < argc) o.command = *subcommand(argv[at]);
  // getopt_long permutes; "+" stops at the first non-option so that
  // "-- COMMAND ARGS" and bare specs are left for us.
  std::vector<char *> args{argv[0]};
  for (int i = 1; i < argc; ++i)
    if (i != at) args.push_back(argv[i]);
  args.push_back(nullptr);
  int n = static_cast<int>(args.size()) - 1;
  optind = 1;
  opterr = 0;
  int c;
  // report takes its FILE anywhere ("report f.dat --json"): let getopt permute.
  const char *shorts = kShortOptions;
  if (o.command == CliOptions::Command::Report) ++shorts;
  std::vector<int> seen;  // every option given, for check_option_scope()
  while ((c = getopt_long(n, args.data(), shorts, long_options, nullptr)) != -1) {
    if (c != ':' && c != '?') seen.push_back(c);
    switch (c) {
      case 'a': o.add.push_back(optarg); break;
      case 'd': o.del.push_back(optarg); break;
      case 'l':
        // "-l PATTERN" as well as "-lPATTERN"/"--list=PATTERN", as perf takes it.
        if (optarg) o.list = optarg;
        else if (optind < n && args[optind][0] != '-' && o.command == CliOptions::Command::Probe) o.list = args[optind++];
        else o.list = "";
        break;
      case 'D': o.definition.push_back(optarg); break;
      case 'x':
        // An empty -x would silently mean the kernel.
        if (!*optarg) return Error("-x: the program path is empty", "give a program or library, or leave -x out for the kernel");
        o.exec = optarg;
        break;
      case 'k': o.vmlinux = optarg; break;
      case 'm': o.module = optarg; break;
      case 's': o.source = optarg; break;
      case 'f': o.force = true; break;
      case 'n': o.dry_run = true; break;
      case 'q': o.quiet = true; break;
      case 'v': ++o.verbose; break;
      case 'h': o.command = CliOptions::Command::Help; break;
      case 'e': o.events.push_back(optarg); break;
      case 'o': o.output = optarg; o.output_given = true; break;
      case opt_keep: o.keep = true; break;
      case opt_stack: o.stack = true; break;
      case opt_by: o.hist_by.push_back(optarg); break;
      case opt_sum: o.hist_sum.push_back(optarg); break;
      case opt_latency: o.hist_latency = optarg; break;
      case opt_enable: o.enable.push_back(optarg); break;
      case opt_disable: o.disable.push_back(optarg); break;
      case opt_maxactive: {
        char *end = nullptr;
        long v = std::strtol(optarg, &end, 10);
        if (*end || v <= 0 || v > 4096)
          return Error(std::string("--maxactive: expected a number from 1 to 4096, got '") + optarg + "'");
        o.maxactive = static_cast<unsigned>(v);
        break;
      }
      case opt_json: o.json = true; break;
      case opt_demangle: o.demangle = true; break;
      case opt_no_demangle: o.demangle = false; break;
      case opt_demangle_kernel: o.demangle_kernel = true; break;
      case opt_prefix_map: {
        const char *eq = std::strchr(optarg, '=');
        if (!eq || eq == optarg)
          return Error(std::string("--prefix-map: expected OLD=NEW, got '") + optarg + "'",
                       "e.g. --prefix-map /build/tree=/home/me/src");
        o.prefix_map.emplace_back(std::string(optarg, static_cast<size_t>(eq - optarg)), std::string(eq + 1));
        break;
      }
      case opt_no_inlines: o.no_inlines = true; break;
      case opt_listen: o.listen = optarg; break;
      case opt_hist: o.hist.push_back(optarg); break;
      case 'F':
        if (optarg) o.funcs = optarg;
        else if (optind < n && args[optind][0] != '-' && o.command == CliOptions::Command::Probe) o.funcs = args[optind++];
        else o.funcs = "";
        break;
      case opt_sdt: o.sdt = true; break;
      case 'V': o.vars.push_back(optarg); break;
      case 'L': o.lines.push_back(optarg); break;
      case opt_externs: o.externs = true; break;
      case opt_range: o.range = true; break;
      case opt_pid_only: o.pid_only = true; break;
      case opt_filter: o.filter = optarg; break;
      case opt_version: o.command = CliOptions::Command::Version; break;
      case opt_no_cache: o.no_cache = true; break;
      case opt_fprobe: o.fprobe = true; break;
      case opt_file_version:
        if (std::strcmp(optarg, "6") && std::strcmp(optarg, "7"))
          return Error(std::string("--file-version: expected 6 or 7, got '") + optarg + "'");
        o.file_version = std::atoi(optarg);
        break;
      case opt_compression:
        if (std::strcmp(optarg, "zstd") && std::strcmp(optarg, "zlib") && std::strcmp(optarg, "none"))
          return Error(std::string("--compression: expected zstd, zlib or none, got '") + optarg + "'");
        o.compression = optarg;
        break;
      case opt_max_probes: {
        char *end = nullptr;
        long v = std::strtol(optarg, &end, 10);
        if (*end || v <= 0) return Error(std::string("--max-probes: expected a positive number, got '") + optarg + "'");
        o.max_probes = static_cast<size_t>(v);
        break;
      }
      case opt_duration: {
        char *end = nullptr;
        double v = std::strtod(optarg, &end);
        if (*end || v <= 0) return Error(std::string("--duration: expected seconds > 0, got '") + optarg + "'");
        o.duration = v;
        break;
      }
      case ':':
        return Error(std::string("option '") + args[optind - 1] + "' needs a value", "see 'kprobe-probe --help'");
      default:
        return Error(std::string("unknown option '") + args[optind - 1] + "'", "see 'kprobe-probe --help'");
    }
  }
  if (Status scope = check_option_scope(o.command, seen); !scope) return std::move(scope).error();
  // What is left: "-- COMMAND..." for trace/record, else one probe spec
  // made of all the words, as perf probe joins them.
  std::vector<std::string> rest(args.begin() + optind, args.begin() + n);
  bool after_dashes = optind > 1 && std::strcmp(args[optind - 1], "--") == 0;
  if (o.command == CliOptions::Command::Trace || o.command == CliOptions::Command::Record ||
      o.command == CliOptions::Command::Live || o.command == CliOptions::Command::Hist ||
      o.command == CliOptions::Command::Export) {
    if (!rest.empty() && !after_dashes)
      return Error("unexpected '" + rest.front() + "'", "give the command to trace after '--'");
    o.command_line = rest;
  } else if (o.command == CliOptions::Command::Report) {
    if (rest.size() != 1) return Error("report reads one trace.dat", "kprobe-probe report FILE [--json]");
    o.input = rest.front();
  } else if (!rest.empty()) {
    if (o.command == CliOptions::Command::Demo) return Error("demo takes no arguments");
    std::string spec;
    for (const std::string &w : rest) spec += (spec.empty() ? "" : " ") + w;
    o.add.push_back(spec);
  }
  return o;
}

const char *usage_text() {
  return R"(usage: kprobe-probe [options] PROBE
       kprobe-probe [options] --add PROBE [--add PROBE ...]
       kprobe-probe -x PROGRAM -D PROBE       print the definitions, change nothing
       kprobe-probe -l [PATTERN] [--json]     list probes
       kprobe-probe -d PATTERN                delete probes
       kprobe-probe trace -e GROUP:EVENT [--json] [--stack] [--duration S] [-- COMMAND...]
       kprobe-probe record -e GROUP:EVENT [-o trace.dat] [--duration S] [-- COMMAND...]
       kprobe-probe report FILE [--json]      print a trace.dat's events as trace does
       kprobe-probe live [-e GROUP:EVENT | [-x PROG] --add PROBE...] [-o trace.dat] [--keep] [-- COMMAND...]
                                              watch probes fire in the terminal
       kprobe-probe hist -e GROUP:EVENT --by FIELD[.log2|.hex|.sym|.execname]... [--sum FIELD]
                         [--filter EXPR] [--duration S] [--json] [-- COMMAND...]   count per key in the kernel
       kprobe-probe hist --latency FUNC [--duration S] [--json] [-- COMMAND...]    FUNC's latency, log2 µs
       kprobe-probe export -e GROUP:EVENT --listen [HOST:]PORT [--hist ARG] [--duration S] [-- COMMAND...]
                                              serve Prometheus metrics at /metrics
       kprobe-probe demo                      the bundled demo

PROBE: [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return] [ARG ...]  or  SRC:ALN [ARG ...]
       or an SDT marker: %sdt_PROVIDER:NAME [[NAME=]argN[:TYPE] ...]
ARG:   [NAME=]VAR[->m|.m|[i]]...[:TYPE] | $retval | $params | $vars | $comm | %REG | @SYM

  -a, --add PROBE        add a probe (a bare PROBE means --add)
  -D, --definition PROBE print the kernel definition of PROBE instead of adding it
  -L, --line RANGE       show the lines of FUNC[:RLN[+N|-RLN2]] or SRC:ALN[+N|-ALN2] that can be probed
  -V, --vars PROBEPOINT  show the variables that can be read at a probe point (--externs, --range)
  -F, --funcs[=GLOB]     list the functions that can be probed (--sdt: the SDT markers, sdt_PROVIDER:NAME)
  -d, --del PATTERN      delete the probes matching [GROUP:]EVENT (globs allowed)
  -l, --list[=PATTERN]   list probes, perf's line form (--json: one object a line)
  -x, --exec PATH        probe a program or library (uprobes)
  -k, --vmlinux PATH     the kernel's DWARF vmlinux
  -m, --module NAME|PATH probe a kernel module (its debug .ko found by name, or given)
  -s, --source DIR       where to find source files
      --prefix-map OLD=NEW  read source paths that start with OLD under NEW (repeatable)
      --no-demangle      show C++ names as the symbol table has them (-F, messages)
      --demangle-kernel  demangle kernel symbols too
  -f, --force            add even if the event exists, with a _N suffix; accept a vmlinux
                         or module of another build-id, a +OFFS not at a line start
      --maxactive N      (kernel %return) kretprobe instances at once (definition rN:)
      --fprobe           (kernel) fprobe events (f:, kernel 6.x) on FUNC and FUNC%return, not kprobes
      --enable PATTERN   enable the matching events (top-level tracefs switch)
      --disable PATTERN  disable them again
  -n, --dry-run          do everything but change the kernel
  -q, --quiet            print only errors
  -v, --verbose          say more (trace: each line ends with the probe's address and site)
      --max-probes N     at most N sites per probe (default 128)
      --no-inlines       probe out-of-line bodies only, not inlined copies
      --no-cache         neither read nor write the index cache (~/.cache/kprobe-probe)
  -o, --output FILE      (record) the trace.dat to write (default trace.dat); (trace) where the lines go
  -e, --event PATTERN    (trace, record) events to enable in our own tracefs instance
      --file-version 6|7 (record) trace.dat version (default 6, which every reader opens)
      --compression ALGO (record, version 7) zstd, zlib or none (default none)
      --json             (trace, report, list) JSON lines
      --duration S       (trace) stop after S seconds
      --filter EXPR      (trace) tracefs event filter
      --pid-only         (trace, hist) only the traced command and its children
      --stack            (trace, record, live) each event's kernel stack (uprobes: user stack)
      --keep             (live) leave the probes it added when it quits
      --listen [HOST:]PORT  (export) where to serve /metrics; HOST defaults to 127.0.0.1
      --hist ARG         (export) a log2 histogram of argument ARG (repeatable)
      --version          print the version and exit
  -h, --help             this text; the manual: man kprobe-probe (Documentation/kprobe-probe.txt)
)";
}

}  // namespace kpp
