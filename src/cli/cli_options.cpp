#include "src/cli/cli_options.h"

#include "src/cli/option_conflicts.h"

#include <getopt.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "src/hist/hist_request.h"
#include "src/stream/filter_expression.h"

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
enum StackLongOnly { opt_stack = 1900, opt_user_stack, opt_stack_window, opt_folded };

// Options of export.
enum ExportLongOnly { opt_listen = 1600, opt_hist, opt_listen_name };

// Options of running processes (-p is short).
enum TargetLongOnly { opt_target_ns = 2000, opt_children };

// Options of values.
enum ValueLongOnly { opt_max_items = 2100 };

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
    {"max-items", required_argument, nullptr, opt_max_items},
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
    {"listen-name", no_argument, nullptr, opt_listen_name},
    {"hist", required_argument, nullptr, opt_hist},
    {"by", required_argument, nullptr, opt_by},
    {"sum", required_argument, nullptr, opt_sum},
    {"latency", required_argument, nullptr, opt_latency},
    {"stack", no_argument, nullptr, opt_stack},
    {"user-stack", required_argument, nullptr, opt_user_stack},
    {"stack-window", required_argument, nullptr, opt_stack_window},
    {"folded", no_argument, nullptr, opt_folded},
    {"pid", required_argument, nullptr, 'p'},
    {"target-ns", required_argument, nullptr, opt_target_ns},
    {"children", no_argument, nullptr, opt_children},
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
  static const std::vector<int> trace{'e',       'o',       opt_json,       opt_duration,     opt_filter, opt_pid_only,
                                      opt_stack, opt_user_stack, opt_stack_window, opt_folded,      'p',        opt_children};
  static const std::vector<int> record{'e',       'o',            opt_duration,     opt_filter, opt_pid_only, opt_file_version,
                                       opt_compression, opt_stack, opt_user_stack, opt_stack_window, 'p',        opt_children};
  static const std::vector<int> report{opt_json, opt_folded};
  // live --add takes the probe options too.
  static const std::vector<int> live{'e', 'o', opt_filter, opt_keep, 'a', 'x', 'k', 'm', 's', 'f', opt_max_probes,
                                     opt_no_inlines, opt_no_cache, opt_maxactive, opt_demangle, opt_no_demangle,
                                     opt_demangle_kernel, opt_prefix_map, opt_fprobe, opt_stack, opt_user_stack,
                                     opt_stack_window, 'p', opt_children, opt_max_items};
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

// The options that shape --stack do nothing without it.
Status check_stack_options(const CliOptions &o) {
  // hist counts in the kernel, whose only stack key is the kernel stack.
  if (o.command == CliOptions::Command::Hist && (o.stack || o.folded || o.user_stack_given))
    return Error("hist counts in the kernel, and the kernel's hist key of a stack holds kernel stacks only",
                 kHistStackAlternative);
  const char *lone = o.user_stack_given ? "--user-stack" : o.stack_window_given ? "--stack-window" : nullptr;
  if (lone && !o.stack) return Error(std::string(lone) + " shapes --stack's user stacks: add --stack");
  if (o.stack_window_given && o.user_stack_fp) return Error("--stack-window is the window DWARF unwinding reads: not with --user-stack=fp");
  if (o.folded && o.command == CliOptions::Command::Trace && !o.stack) return Error("--folded counts stacks: add --stack");
  if (o.folded && o.json) return Error("--folded and --json are two output forms: choose one");
  return Ok{};
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

// "+": stop at the first operand; ":": an option without its value is told
// apart from an unknown one (getopt_long returns ':' for it).
constexpr const char *kShortOptions = "+:a:d:l::D:x:k:m:s:fnqvhe:o:F::V:L:p:";

// The words getopt_long reads: argv without the subcommand word, ended by a
// null pointer as getopt_long wants; getopt's optind indexes them.
struct OptionWords {
  std::vector<char *> ptrs;
  int count() const { return static_cast<int>(ptrs.size()) - 1; }
  const char *operator[](int i) const { return ptrs[static_cast<size_t>(i)]; }
};

OptionWords option_words(int argc, char **argv, int subcommand_index) {
  OptionWords words;
  words.ptrs.push_back(argv[0]);
  for (int i = 1; i < argc; ++i)
    if (i != subcommand_index) words.ptrs.push_back(argv[i]);
  words.ptrs.push_back(nullptr);
  return words;
}

// The optional value of -l and -F: "-lPATTERN"/"--list=PATTERN", and for
// the probe command also "-l PATTERN" as perf takes it (the next word, when
// it is not an option); "" means all.
std::string optional_pattern(const OptionWords &words, CliOptions::Command command) {
  if (optarg) return optarg;
  if (optind < words.count() && words[optind][0] != '-' && command == CliOptions::Command::Probe)
    return words[optind++];
  return "";
}

Status set_exec(CliOptions &o, const char *arg) {
  // An empty -x would silently mean the kernel.
  if (!*arg) return Error("-x: the program path is empty", "give a program or library, or leave -x out for the kernel");
  o.exec = arg;
  return Ok{};
}

// `arg` as a whole decimal number from 1 to `max`, else an error naming `option`.
Result<unsigned> number_up_to(const char *option, const char *arg, long max) {
  char *end = nullptr;
  long v = std::strtol(arg, &end, 10);
  if (*end || v <= 0 || v > max)
    return Error(std::string(option) + ": expected a number from 1 to " + std::to_string(max) + ", got '" + arg + "'");
  return static_cast<unsigned>(v);
}

Status set_maxactive(CliOptions &o, const char *arg) {
  auto v = number_up_to("--maxactive", arg, 4096);
  if (!v) return std::move(v).error();
  o.maxactive = *v;
  return Ok{};
}

Status set_user_stack(CliOptions &o, const char *arg) {
  if (std::strcmp(arg, "dwarf") == 0) o.user_stack_fp = false;
  else if (std::strcmp(arg, "fp") == 0) o.user_stack_fp = true;
  else return Error(std::string("--user-stack: expected dwarf or fp, got '") + arg + "'");
  o.user_stack_given = true;
  return Ok{};
}

// BYTES, or NK for N KiB: a multiple of 8 that perf can sample (it caps a
// sample at 64 KiB, registers and headers included).
Status set_stack_window(CliOptions &o, const char *arg) {
  char *end = nullptr;
  unsigned long long v = std::strtoull(arg, &end, 10);
  if (end != arg && (*end == 'K' || *end == 'k') && end[1] == 0) {
    v *= 1024;
    ++end;
  }
  if (end == arg || *end || v < 8 || v > 65016 || v % 8)
    return Error(std::string("--stack-window: expected a number of bytes from 8 to 65016, a multiple of 8 (or NK), got '") +
                 arg + "'");
  o.stack_window = static_cast<size_t>(v);
  o.stack_window_given = true;
  return Ok{};
}

Status add_prefix_map(CliOptions &o, const char *arg) {
  const char *eq = std::strchr(arg, '=');
  if (!eq || eq == arg)
    return Error(std::string("--prefix-map: expected OLD=NEW, got '") + arg + "'",
                 "e.g. --prefix-map /build/tree=/home/me/src");
  o.prefix_map.emplace_back(std::string(arg, static_cast<size_t>(eq - arg)), std::string(eq + 1));
  return Ok{};
}

Status set_file_version(CliOptions &o, const char *arg) {
  if (std::strcmp(arg, "6") && std::strcmp(arg, "7"))
    return Error(std::string("--file-version: expected 6 or 7, got '") + arg + "'");
  o.file_version = std::atoi(arg);
  return Ok{};
}

Status set_compression(CliOptions &o, const char *arg) {
  if (std::strcmp(arg, "zstd") && std::strcmp(arg, "zlib") && std::strcmp(arg, "none"))
    return Error(std::string("--compression: expected zstd, zlib or none, got '") + arg + "'");
  o.compression = arg;
  return Ok{};
}

Status set_max_probes(CliOptions &o, const char *arg) {
  char *end = nullptr;
  long v = std::strtol(arg, &end, 10);
  if (*end || v <= 0) return Error(std::string("--max-probes: expected a positive number, got '") + arg + "'");
  o.max_probes = static_cast<size_t>(v);
  return Ok{};
}

Status set_max_items(CliOptions &o, const char *arg) {
  // 64: the kernel's MAX_ARRAY_LEN, the longest array one fetch-arg reads.
  auto v = number_up_to("--max-items", arg, 64);
  if (!v) return std::move(v).error();
  o.max_items = *v;
  return Ok{};
}

// -p PID and --target-ns=PID: a process id (1 to the largest pid_max, 2^22).
Status add_pid(CliOptions &o, const char *arg, const char *option) {
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(arg, &end, 10);
  if (!*arg || *end || errno || v <= 0 || v > (1L << 22))
    return Error(std::string(option) + ": expected a process id, got '" + arg + "'", "find one with pgrep NAME");
  if (std::find(o.pids.begin(), o.pids.end(), static_cast<int>(v)) == o.pids.end()) o.pids.push_back(static_cast<int>(v));
  if (!std::strcmp(option, "--target-ns")) o.target_ns = true;
  return Ok{};
}

Status set_duration(CliOptions &o, const char *arg) {
  char *end = nullptr;
  double v = std::strtod(arg, &end);
  if (*end || v <= 0) return Error(std::string("--duration: expected seconds > 0, got '") + arg + "'");
  o.duration = v;
  return Ok{};
}

// What getopt_long returned for a word it could not take: ':' for an option
// without its value, '?' for an unknown one. The word is the last one read.
Error option_error(int c, const OptionWords &words) {
  std::string word = words[optind - 1];
  if (c == ':') return Error("switch '" + word + "' needs a value", "see 'kprobe-probe --help'");
  return Error("unknown option '" + word + "'", "see 'kprobe-probe --help'");
}

// Stores one option getopt_long returned (`c`, its value in optarg) in `o`;
// an option whose value can be wrong is checked by a function of its own
// (set_maxactive, add_prefix_map, ...).
Status apply_option(CliOptions &o, int c, const OptionWords &words) {
  switch (c) {
    case 'a': o.add.push_back(optarg); break;
    case 'd': o.del.push_back(optarg); break;
    case 'l': o.list = optional_pattern(words, o.command); break;
    case 'D': o.definition.push_back(optarg); break;
    case 'x': return set_exec(o, optarg);
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
    case opt_user_stack: return set_user_stack(o, optarg);
    case opt_stack_window: return set_stack_window(o, optarg);
    case opt_folded: o.folded = true; break;
    case opt_by: o.hist_by.push_back(optarg); break;
    case opt_sum: o.hist_sum.push_back(optarg); break;
    case opt_latency: o.hist_latency = optarg; break;
    case opt_enable: o.enable.push_back(optarg); break;
    case opt_disable: o.disable.push_back(optarg); break;
    case opt_maxactive: return set_maxactive(o, optarg);
    case opt_json: o.json = true; break;
    case opt_demangle: o.demangle = true; break;
    case opt_no_demangle: o.demangle = false; break;
    case opt_demangle_kernel: o.demangle_kernel = true; break;
    case opt_prefix_map: return add_prefix_map(o, optarg);
    case opt_no_inlines: o.no_inlines = true; break;
    case opt_listen: o.listen = optarg; break;
    case opt_listen_name: o.listen_name = true; break;
    case opt_hist: o.hist.push_back(optarg); break;
    case 'F': o.funcs = optional_pattern(words, o.command); break;
    case opt_sdt: o.sdt = true; break;
    case 'V': o.vars.push_back(optarg); break;
    case 'L': o.lines.push_back(optarg); break;
    case opt_externs: o.externs = true; break;
    case opt_range: o.range = true; break;
    case opt_pid_only: o.pid_only = true; break;
    case opt_filter: o.filter = optarg; return check_filter_expression(o.filter);
    case opt_version: o.command = CliOptions::Command::Version; break;
    case opt_no_cache: o.no_cache = true; break;
    case opt_fprobe: o.fprobe = true; break;
    case opt_file_version: return set_file_version(o, optarg);
    case opt_compression: return set_compression(o, optarg);
    case opt_max_probes: return set_max_probes(o, optarg);
    case opt_max_items: return set_max_items(o, optarg);
    case opt_duration: return set_duration(o, optarg);
    case 'p': return add_pid(o, optarg, "-p");
    case opt_target_ns: return add_pid(o, optarg, "--target-ns");
    case opt_children: o.children = true; break;
    default: return option_error(c, words);
  }
  return Ok{};
}

// The words left after the options: "-- COMMAND..." for the session
// commands, the trace.dat for report, else one probe spec made of all the
// words, as perf probe joins them.
Status take_operands(CliOptions &o, const std::vector<std::string> &rest, bool after_dashes) {
  switch (o.command) {
    case CliOptions::Command::Trace:
    case CliOptions::Command::Record:
    case CliOptions::Command::Live:
    case CliOptions::Command::Hist:
    case CliOptions::Command::Export:
      if (!rest.empty() && !after_dashes)
        return Error("unexpected '" + rest.front() + "'", "give the command to trace after '--'");
      o.command_line = rest;
      return Ok{};
    case CliOptions::Command::Report:
      if (rest.size() != 1) return Error("report reads one trace.dat", "kprobe-probe report FILE [--json]");
      o.input = rest.front();
      return Ok{};
    default:
      break;
  }
  if (rest.empty()) return Ok{};
  if (o.command == CliOptions::Command::Demo) return Error("demo takes no arguments");
  std::string spec;
  for (const std::string &w : rest) spec += (spec.empty() ? "" : " ") + w;
  o.add.push_back(spec);
  return Ok{};
}

}  // namespace

Result<CliOptions> parse_cli(int argc, char **argv) {
  CliOptions o;
  int at = subcommand_at(argc, argv, kShortOptions);
  if (at < argc) o.command = *subcommand(argv[at]);
  OptionWords words = option_words(argc, argv, at);
  // getopt_long permutes; "+" stops at the first non-option so that
  // "-- COMMAND ARGS" and bare specs are left for us. But report takes its
  // FILE anywhere ("report f.dat --json"): let getopt permute there.
  const char *shorts = kShortOptions;
  if (o.command == CliOptions::Command::Report) ++shorts;  // ":..." without the "+"
  optind = 1;
  opterr = 0;
  std::vector<int> seen;  // every option given, for check_option_scope()
  int c;
  while ((c = getopt_long(words.count(), words.ptrs.data(), shorts, long_options, nullptr)) != -1) {
    if (c != ':' && c != '?') seen.push_back(c);
    if (Status applied = apply_option(o, c, words); !applied) return std::move(applied).error();
  }
  if (Status scope = check_option_scope(o.command, seen); !scope) return std::move(scope).error();
  if (Status st = check_stack_options(o); !st) return std::move(st).error();
  std::vector<std::string> rest(words.ptrs.begin() + optind, words.ptrs.begin() + words.count());
  bool after_dashes = optind > 1 && std::strcmp(words[optind - 1], "--") == 0;
  if (Status operands = take_operands(o, rest, after_dashes); !operands) return std::move(operands).error();
  if (Status conflicts = check_option_conflicts(o); !conflicts) return std::move(conflicts).error();
  return o;
}

namespace {

// --help's parts, in the order it prints them, a blank line between them.

// One line per form of each command.
const char *synopsis_text() {
  return R"(usage: kprobe-probe [options] PROBE
       kprobe-probe [options] --add PROBE [--add PROBE ...]
       kprobe-probe -x PROGRAM -D PROBE       print the definitions, change nothing
       kprobe-probe -l [PATTERN] [--json]     list probes
       kprobe-probe -d PATTERN                delete probes
       kprobe-probe -p PID [-x LIB] --add PROBE   probe a running process's program or library
       kprobe-probe trace -e GROUP:EVENT [--json] [--stack] [--duration S] [-p PID... | -- COMMAND...]
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
)";
}

// The grammar of PROBE and ARG, in perf probe's notation.
const char *probe_syntax_text() {
  return R"(PROBE: [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|%return] [ARG ...]  or  SRC:ALN [ARG ...]
       or an SDT marker: %sdt_PROVIDER:NAME [[NAME=]argN[:TYPE] ...]
ARG:   [NAME=]VAR[->m|.m|[i]]...[:TYPE] | $retval | $params | $vars | $comm | %REG | @SYM
)";
}

// Every option, one line each (two where the text needs them).
const char *options_text() {
  return R"(  -a, --add PROBE        add a probe (a bare PROBE means --add)
  -D, --definition PROBE print the kernel definition of PROBE instead of adding it
  -L, --line RANGE       show the lines of FUNC[:RLN[+N|-RLN2]] or SRC:ALN[+N|-ALN2] that can be probed
  -V, --vars PROBEPOINT  show the variables that can be read at a probe point (--externs, --range)
  -F, --funcs[=GLOB]     list the functions that can be probed (--sdt: the SDT markers, sdt_PROVIDER:NAME)
  -d, --del PATTERN      delete the probes matching [GROUP:]EVENT (globs allowed)
  -l, --list[=PATTERN]   list probes, perf's line form (--json: one object a line)
  -x, --exec PATH        probe a program or library (uprobes)
  -p, --pid PID          a running process (repeatable): probe its program, or with -x NAME the library
                         NAME (glob) as it maps it, in its own root (containers); (trace, record, live,
                         hist, export) only its threads' events, until it exits
      --target-ns PID    perf's spelling of -p for the probe commands: -x PATH in PID's mount namespace
      --children         (with -p, sessions) the targets' children too
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
      --max-items N      the first N elements of a slice, Vec, std::vector or array over 64 (default 8, at most 64)
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
      --user-stack dwarf|fp  (with --stack) unwind user stacks from DWARF CFI (default) or frame pointers
      --stack-window BYTES   (with --stack) bytes of user stack copied per event for DWARF (default 8K)
      --folded           (trace --stack, report) print folded stacks "f1;f2;f3 COUNT" for flame graphs
      --keep             (live) leave the probes it added when it quits
      --listen [HOST:]PORT  (export) where to serve /metrics; HOST: a numeric address, default 127.0.0.1
      --listen-name      (export) HOST may be a host name (looked up in DNS)
      --hist ARG         (export) a log2 histogram of argument ARG (repeatable)
      --version          print the version and exit
  -h, --help             this text; the manual: man kprobe-probe (Documentation/kprobe-probe.txt)
)";
}

}  // namespace

const char *usage_text() {
  static const std::string text = std::string(synopsis_text()) + "\n" + probe_syntax_text() + "\n" + options_text();
  return text.c_str();
}

}  // namespace kpp
