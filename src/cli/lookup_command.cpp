// Looking before probing: -F (functions), -V (variables at a probe point),
// -L (lines that can be probed, with their source when it can be found).
#include <fnmatch.h>

#include <climits>
#include <cstdlib>
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

#include "src/cli/build_options.h"
#include "src/cli/commands.h"
#include "src/cli/probe_target.h"
#include "src/definition/probe_builder.h"
#include "src/lookup/line_range.h"
#include "src/lookup/source_file.h"
#include "src/sdt/sdt_probe.h"
#include "src/spec/probe_spec.h"
#include "util/strings.h"

namespace kpp {

namespace {

// perf's default -F filter leaves out names starting with '_' (internals),
// but not C++'s mangled names (--no-demangle): they are the program's own.
Status list_functions(const CliOptions &options, dwarf::DebugInfo &debug) {
  const std::string &glob = *options.funcs;
  std::vector<std::string_view> names = debug.function_names();
  std::string out, name;
  out.reserve(names.size() * 24);
  for (std::string_view view : names) {
    name.assign(view);
    bool shown = glob.empty() ? name[0] != '_' || name.starts_with("_Z") : fnmatch(glob.c_str(), name.c_str(), 0) == 0;
    if (shown) out.append(name).push_back('\n');
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return Ok{};
}

// -F --sdt: the program's SDT markers, read from its ELF notes (no DWARF).
Status print_sdt_markers(const CliOptions &options) {
  if (options.exec.empty())
    return Error("SDT markers are in programs and libraries: name one with -x", "e.g. kprobe-probe -x /usr/bin/python3.11 -F --sdt");
  char resolved[PATH_MAX];
  if (!realpath(options.exec.c_str(), resolved)) return Error("cannot find the program '" + options.exec + "'");
  auto lines = sdt::list_sdt_markers(resolved, *options.funcs);
  if (!lines) return std::move(lines).error();
  for (const std::string &line : *lines) std::printf("%s\n", line.c_str());
  return Ok{};
}

std::string symbolic(dwarf::DebugInfo &debug, uint64_t address) {
  auto sym = debug.elf().symbolize(address);
  return sym ? debug.display_symbol(sym->first) + "+" + std::to_string(sym->second) : hex(address);
}

// "walk+0x1e-0x40": a range inside one symbol, as offsets into it.
std::string range_text(dwarf::DebugInfo &debug, const dwarf::AddressRange &r) {
  auto sym = debug.elf().symbolize(r.begin);
  if (!sym) return hex(r.begin) + "-" + hex(r.end);
  return debug.display_symbol(sym->first) + "+" + hex(sym->second) + "-" + hex(sym->second + (r.end - r.begin));
}

// "walk:4-6" for the lines of `fn` whose code lies in `ranges`.
std::string lines_of_ranges(const std::vector<dwarf::LineSite> &rows, const dwarf::Function &fn,
                            const std::vector<dwarf::AddressRange> &ranges) {
  int lo = 0, hi = 0;
  for (const dwarf::LineSite &row : rows) {
    bool inside = std::any_of(ranges.begin(), ranges.end(), [&](const dwarf::AddressRange &r) { return r.contains(row.address); });
    if (!inside) continue;
    int rel = row.line - fn.decl_line;
    if (rel < 0) continue;  // code inlined from a function above this one in the file
    if (lo == 0 && hi == 0) lo = hi = rel;
    lo = std::min(lo, rel);
    hi = std::max(hi, rel);
  }
  if (lo == 0 && hi == 0) return "";
  return fn.name + ":" + std::to_string(lo) + (hi != lo ? "-" + std::to_string(hi) : "");
}

Status show_variables(const CliOptions &options, ProbeTarget &target, const std::string &text) {
  auto spec = parse_probe_spec(text);
  if (!spec) return std::move(spec).error();
  if (!spec->args.empty())
    return Error("-V takes a probe point without arguments").at(text, spec->args.front().span);
  BuildOptions build = build_options_for(options, target);
  auto resolved = build_probe(*spec, *target.debug, build);
  if (!resolved) return std::move(resolved).error();
  std::printf("Available variables at %s\n", text.c_str());
  for (const ResolvedProbe &site : resolved->sites) {
    std::printf("        @<%s>\n", symbolic(*target.debug, site.address).c_str());
    std::vector<dwarf::LineSite> rows;
    if (options.range) rows = target.debug->line_rows(site.function);
    for (const dwarf::Variable &v : target.debug->variables_at(site.function, site.address)) {
      if (v.is_global && !options.externs) continue;
      std::string type = target.debug->describe(v.type).name;
      if (!options.range) {
        if (v.place) std::printf("                %s\t%s\n", type.c_str(), v.name.c_str());
        continue;
      }
      // --range: where the variable can be read, as addresses and as lines,
      // also for the ones that cannot be read here.
      std::vector<dwarf::AddressRange> merged;  // location lists split ranges where only the location changes
      for (const dwarf::AddressRange &r : v.available) {
        if (!merged.empty() && merged.back().end == r.begin) merged.back().end = r.end;
        else merged.push_back(r);
      }
      std::string where;
      for (const dwarf::AddressRange &r : merged) where += (where.empty() ? "" : ",") + range_text(*target.debug, r);
      std::string lines = lines_of_ranges(rows, site.function, v.available);
      std::printf("                %s\t%s\t[%s]%s%s%s\n", type.c_str(), v.name.c_str(),
                  v.is_global ? "global" : where.c_str(), lines.empty() ? "" : " lines ", lines.c_str(),
                  v.place ? "" : ("  not here: " + v.unavailable_why).c_str());
    }
  }
  return Ok{};
}

// A line number computed from DWARF's, inside [0, kMaxLine].
int clamp_line(int64_t line) { return static_cast<int>(std::clamp<int64_t>(line, 0, kMaxLine)); }

// The lines -L shows: which have code (absolute line -> its addresses),
// from which file, and the numbers printed (line - base).
struct LineListing {
  std::map<int, std::vector<uint64_t>> code;
  std::string file;
  int base = 0;
  int first = 0, last = 0;
  std::string header;
};

// FUNC[:RLN[-RLN2|+N]]: the function's rows, numbered from its declaration.
Result<LineListing> function_lines(dwarf::DebugInfo &debug, const LineRange &range) {
  auto fns = debug.find_functions(range.function, range.file, dwarf::InlineCopies::Exclude);
  if (fns.empty()) {
    if (std::string missing = debug.provenance().missing_split_dwarf(); !missing.empty())
      return Error("no function '" + range.function + "' in '" + debug.elf().path() + "'", missing);
    auto similar = debug.similar_functions(range.function, 5);
    return Error("no function '" + range.function + "' in '" + debug.elf().path() + "'",
                 similar.empty() ? "list the functions with 'kprobe-probe -F'" : "did you mean: " + join(similar));
  }
  const dwarf::Function &fn = fns.front();
  LineListing out;
  for (const dwarf::LineSite &row : debug.line_rows(fn)) {
    std::vector<uint64_t> &addresses = out.code[row.line];
    if (std::find(addresses.begin(), addresses.end(), row.address) == addresses.end()) addresses.push_back(row.address);
  }
  out.file = fn.decl_file;
  out.base = fn.decl_line;
  // In 64 bits: the declaration line is the file's word, and may be near INT_MAX.
  out.first = clamp_line(int64_t{fn.decl_line} + range.begin);
  out.last = range.end ? clamp_line(int64_t{fn.decl_line} + *range.end)
                       : (out.code.empty() ? out.first : out.code.rbegin()->first);
  out.header = "<" + fn.name + "@" + out.file + ":" + std::to_string(range.begin) + ">";
  return out;
}

// SRC:ALN[-ALN2|+N]: the file's lines with code, by absolute number.
Result<LineListing> file_lines(const CliOptions &options, dwarf::DebugInfo &debug, const LineRange &range,
                               const std::string &text) {
  LineListing out;
  out.first = range.begin;
  int wanted = range.end.value_or(range.begin);
  // Each line is a search of the line tables: walked only as far as the
  // source goes once the first line with code says which file it is.
  out.last = last_line_walked(out.first, wanted, std::nullopt, std::nullopt);
  for (int line = out.first; line <= out.last; ++line)
    for (auto &[site, fn] : debug.file_line_sites(range.file, line)) {
      out.code[line].push_back(site.address);
      if (!out.file.empty()) continue;
      out.file = site.file;  // the line's file, not that of the function it was inlined into
      if (auto source = read_source(out.file, options.source, options.prefix_map, debug.elf().build_id()))
        out.last = last_line_walked(out.first, wanted, static_cast<int>(source->lines.size()), std::nullopt);
    }
  if (out.file.empty()) return Error("no code at " + text + " in '" + debug.elf().path() + "'");
  out.header = "<" + out.file + ":" + std::to_string(out.first) + ">";
  return out;
}

// The range -L names. perf reads a word with a '.' as a file; a function
// named so (Go's "main.Split") is that function when no source file of the
// program has that name and the function exists.
Result<LineRange> line_range_in(dwarf::DebugInfo &debug, const std::string &text) {
  auto range = parse_line_range(text);
  if (!range || !range->could_be_function || !debug.find_source_file(range->file).empty()) {
    if (range && range->function.empty() && !range->end)
      return Error("a source file needs a line: SRC:ALN").at(text, {0, text.size()});
    return range;
  }
  auto as_function = parse_line_range(text, LineRangeAs::Function);
  if (as_function && !debug.find_functions(as_function->function, "", dwarf::InlineCopies::Exclude).empty())
    return as_function;
  if (!range->end)
    return Error("no source file and no function '" + range->file + "' in '" + debug.elf().path() + "'",
                 "list the functions with 'kprobe-probe -F'");
  return range;
}

Status show_lines(const CliOptions &options, ProbeTarget &target, const std::string &text) {
  dwarf::DebugInfo &debug = *target.debug;
  auto range = line_range_in(debug, text);
  if (!range) return std::move(range).error();
  auto listing = range->function.empty() ? file_lines(options, debug, *range, text) : function_lines(debug, *range);
  if (!listing) return std::move(listing).error();
  const auto &[code, file, base, first, listed_last, header] = *listing;
  auto source = read_source(file, options.source, options.prefix_map, debug.elf().build_id());
  int last = last_line_walked(first, listed_last,
                              source ? std::optional<int>(static_cast<int>(source->lines.size())) : std::nullopt,
                              code.empty() ? std::nullopt : std::optional<int>(code.rbegin()->first));
  std::printf("%s\n", header.c_str());
  for (int line = first; line <= last; ++line) {
    auto it = code.find(line);
    bool has_code = it != code.end();
    if (source) {
      if (line < 1 || line > static_cast<int>(source->lines.size())) break;
      const std::string &t = source->lines[line - 1];
      if (has_code) std::printf("%7d  %s\n", line - base, t.c_str());
      else std::printf("         %s\n", t.c_str());
    } else if (has_code) {
      // Without the source, the numbers and where their code is: still
      // enough to write FUNC:RLN probes.
      std::string where;
      for (uint64_t a : it->second) where += (where.empty() ? "" : " ") + symbolic(debug, a);
      std::printf("%7d  (%s)\n", line - base, where.c_str());
    }
  }
  if (!source && !options.quiet)
    std::fprintf(stderr, "kprobe-probe: note: %s\n  hint: %s\n", source.error().message.c_str(),
                 source.error().hint.c_str());
  return Ok{};
}

}  // namespace

Status run_lookup_command(const CliOptions &options) {
  if (options.funcs && options.sdt) {
    if (Status s = print_sdt_markers(options); !s) return s;
    if (options.vars.empty() && options.lines.empty()) return Ok{};
  }
  // A listing's own specs (-L, -V) are parsed where they are read; the
  // target asks nothing of --add's (a listing reads locations, and DWARF).
  auto target = open_probe_target(options, {});
  if (!target) return std::move(target).error();
  if (!target->debug->has_dwarf() && (!options.vars.empty() || !options.lines.empty()))
    return Error(std::string(options.lines.empty() ? "-V lists variables from DWARF" : "-L lists lines from DWARF line tables") +
                     ", which '" + target->debug->elf().path() + "' does not have",
                 "install the program's debug symbols, or rebuild it with -g");
  if (options.funcs && !options.sdt)
    if (Status s = list_functions(options, *target->debug); !s) return s;
  for (const std::string &text : options.vars)
    if (Status s = show_variables(options, *target, text); !s) return s;
  for (const std::string &text : options.lines)
    if (Status s = show_lines(options, *target, text); !s) return s;
  return Ok{};
}

}  // namespace kpp
