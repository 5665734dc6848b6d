// The Builder (builder.h): ProbeSpec -> sites (function entry, return,
// offset, source line) -> definitions with fetch-args.
#include "src/definition/builder.h"
#include "src/definition/site_check.h"

#include <algorithm>
#include <set>

#include "src/definition/arg_resolver.h"
#include "src/definition/point_text.h"
#include "src/lookup/lazy_match.h"
#include "src/lookup/source_file.h"
#include "util/companion_mark.h"
#include "util/goroutine_field.h"
#include "util/strings.h"

namespace kpp {
namespace probe_building {

namespace {

Span point_span(const ProbeSpec &spec) {
  // The probe point is what comes before the first argument (after any
  // EVENT=): a C++ name as printed has spaces in it.
  size_t end = spec.args.empty() ? spec.text.size() : spec.args.front().span.begin;
  while (end > 0 && (spec.text[end - 1] == ' ' || spec.text[end - 1] == '\t')) --end;
  size_t begin = spec.text.find('=');
  begin = (begin == std::string::npos || begin > end) ? 0 : begin + 1;
  return {begin, end};
}

FetchArg companion_mark(std::string_view mark) {
  FetchArg arg;
  arg.name = std::string(mark);
  arg.fetch = std::string(companion_mark_fetch);
  arg.type = std::string(companion_mark_type);
  return arg;
}

}  // namespace

Builder::Builder(const ProbeSpec &spec, dwarf::DebugInfo &debug, const BuildOptions &options) : spec_(spec), debug_(debug), options_(options) {}

Result<ResolvedSpec> Builder::run() {
  regs_ = arch::for_machine(debug_.elf().machine());
  if (!regs_)
    return Error("'" + debug_.elf().path() + "' is for ELF machine " + std::to_string(debug_.elf().machine()) +
                 ", which kprobe-probe has no register table for");
  if (auto refused = needs_dwarf(); refused) return std::move(*refused);
  auto sites = point_sites();
  if (!sites) return std::move(sites).error();
  if (sites->empty())
    return fail("'" + spec_.point.function + "' is only inlined, so it has no " +
                    (spec_.point.is_return ? "return" : "entry offset") + " to probe",
                "probe a line of it, or of the function it is inlined into");
  drop_repeated_addresses(*sites);
  if (sites->size() > options_.max_probes) return too_many_sites(*sites);
  return definitions_at(*sites);
}

Result<std::vector<Site>> Builder::point_sites() {
  const ProbePoint &p = spec_.point;
  if (p.address) {
    auto site = address_site(*p.address);
    if (!site) return std::move(site).error();
    return std::vector<Site>{*site};
  }
  if (!p.function.empty()) return function_sites();
  if (!p.lazy_pattern.empty()) return file_pattern_sites();
  for (auto &[line_site, fn] : debug_.file_line_sites(p.file, p.line)) {
    functions_.push_back(fn);
    line_addresses_.push_back(line_site.address);
  }
  if (functions_.empty()) return fail("no code at " + p.file + ":" + std::to_string(p.line) + " in '" + debug_.elf().path() + "'");
  std::vector<Site> sites;
  for (size_t i = 0; i < functions_.size(); ++i) {
    const dwarf::Function &fn = functions_[i];
    uint64_t address = past_prologue(fn, line_addresses_[i]);
    sites.push_back({&fn, address, line_point(fn, p.line, address)});
  }
  return sites;
}

Result<std::vector<Site>> Builder::function_sites() {
  const ProbePoint &p = spec_.point;
  // A return or an offset has no site in an inlined copy: the symbol
  // table finds the bodies without the name index (no scan on a first
  // run). The copies are looked for only to say why there is nothing.
  bool bodies_only = p.is_return || p.offset;
  // A FUNC%return with nothing but $retval needs the symbol and, for
  // $retval, the type of one unit's subprogram: no other DWARF is read.
  if (p.is_return && p.file.empty() && returns_only_retval()) {
    functions_ = debug_.function_symbols(p.function);
    for (const dwarf::Function &fn : functions_)
      if ((!spec_.args.empty() && !debug_.scalar_return_type(fn)) || debug_.is_go_function(fn))
        functions_.clear();  // LLVM's path, then (Go's results are parameters of its DIE)
  }
  if (functions_.empty())
    functions_ = debug_.find_functions(p.function, p.file, bodies_only ? dwarf::InlineCopies::Exclude : inline_copies());
  if (functions_.empty() && bodies_only) functions_ = debug_.find_functions(p.function, p.file, inline_copies());
  if (functions_.empty()) return no_such_function();
  // A line may be in only some of the bodies (one of a .part.0 split, a
  // copy that kept it): an error only when no body has it.
  std::vector<Site> sites;
  std::optional<Error> first_error;
  for (const dwarf::Function &fn : functions_) {
    auto found = sites_in(fn);
    if (found) sites.insert(sites.end(), found->begin(), found->end());
    else if (!first_error) first_error = std::move(found).error();
  }
  if (sites.empty() && first_error) return std::move(*first_error);
  return sites;
}

Result<ResolvedSpec> Builder::definitions_at(const std::vector<Site> &sites) {
  ResolvedSpec out;
  out.spec = spec_;
  std::optional<Error> first_error;
  for (const Site &site : sites) {
    auto probe = definition_at(site);
    if (probe) {
      out.sites.push_back(std::move(*probe));
      continue;
    }
    out.warnings.push_back("skipped " + site.point + ": " + probe.error().message);
    if (!first_error) first_error = std::move(probe).error();
  }
  if (out.sites.empty()) return std::move(*first_error);
  return out;
}

Error Builder::fail(const std::string &message, const std::string &hint) {
  return Error(message, hint).at(spec_.text, point_span(spec_));
}

std::optional<Error> Builder::needs_dwarf() {
  if (debug_.has_dwarf()) return std::nullopt;
  const ProbePoint &p = spec_.point;
  const char *what = p.line ? "a line number" : !p.lazy_pattern.empty() ? "a lazy pattern" : p.function.empty() && !p.address ? "a source file" : nullptr;
  if (!what) return std::nullopt;
  return fail(std::string(what) + " needs DWARF line tables: " + debug_.provenance().dwarf_note(),
              "probe FUNC, FUNC+OFF, FUNC%return or 0xADDR, or install the program's debug symbols");
}

void Builder::drop_repeated_addresses(std::vector<Site> &sites) {
  std::set<uint64_t> seen;
  std::erase_if(sites, [&](const Site &site) { return !seen.insert(site.address).second; });
}

Error Builder::too_many_sites(const std::vector<Site> &sites) {
  size_t copies = std::count_if(sites.begin(), sites.end(), [](const Site &s) { return s.function->inlined; });
  std::string message = "'" + spec_.text + "' expands to " + std::to_string(sites.size()) +
                        " probe sites, more than --max-probes " + std::to_string(options_.max_probes);
  size_t bodies = sites.size() - copies;
  if (copies > 0) message += " (" + std::to_string(copies) + " of them in inlined copies)";
  if (copies == 0 || bodies == 0 || options_.no_inlines) return fail(message, "raise --max-probes");
  return fail(message, "--no-inlines probes only the out-of-line bod" + std::string(bodies == 1 ? "y" : "ies") + " (" +
                           std::to_string(bodies) + " site" + (bodies == 1 ? "" : "s") + "); or raise --max-probes");
}

bool Builder::returns_only_retval() const {
  return std::all_of(spec_.args.begin(), spec_.args.end(),
                     [](const ProbeArg &a) { return a.kind == ProbeArg::Kind::Retval && a.type.empty(); });
}

Error Builder::no_such_function() {
  std::string where = options_.target_path.empty() ? "the kernel" : "'" + debug_.elf().path() + "'";
  std::string message = "no function '" + spec_.point.function + "'" +
                        (spec_.point.file.empty() ? "" : " in " + spec_.point.file) + " in " + where;
  // Without DWARF the symbol tables were all there was to search.
  if (!debug_.has_dwarf()) message += " (by its symbol tables: " + debug_.provenance().dwarf_note() + ")";
  // A program whose split DWARF is missing knows its functions' names
  // (the symbol table) but nothing else: that, not a typo, is the news.
  if (std::string missing = debug_.provenance().missing_split_dwarf(); !missing.empty()) return fail(message, missing);
  auto similar = debug_.similar_functions(spec_.point.function, 5);
  return fail(message, similar.empty() ? "list the functions with 'kprobe-probe -F'" : "did you mean: " + join(similar));
}

uint64_t Builder::past_prologue(const dwarf::Function &fn, uint64_t address) {
  return address == fn.entry && !fn.inlined ? debug_.probe_entry(fn) : address;
}

dwarf::InlineCopies Builder::inline_copies() {
  return options_.no_inlines ? dwarf::InlineCopies::Exclude : dwarf::InlineCopies::Include;
}

std::string Builder::file_suffix(const dwarf::Function &fn) { return perf_file_suffix(fn.decl_file); }

std::string Builder::line_point(const dwarf::Function &fn, int absolute_line, uint64_t address) {
  if (auto place = debug_.source_of(address); place && place->line > 0) return perf_point(*place, address, false);
  return fn.name + ":" + std::to_string(absolute_line - fn.decl_line) + file_suffix(fn);
}

Result<std::vector<Site>> Builder::sites_in(const dwarf::Function &fn) {
  const ProbePoint &p = spec_.point;
  if (p.is_return) {
    // An inlined copy has no return instruction of its own to probe.
    if (fn.inlined) return std::vector<Site>{};
    if (debug_.is_go_function(fn)) return go_return_sites(fn);
    return std::vector<Site>{{&fn, fn.entry, fn.name + file_suffix(fn) + "%return"}};
  }
  if (p.offset) {
    if (fn.inlined) return std::vector<Site>{};  // an offset counts from an out-of-line entry
    uint64_t address = fn.entry + *p.offset;
    bool inside = false;
    for (const dwarf::AddressRange &r : fn.ranges) inside = inside || r.contains(address);
    if (!inside) return fail("offset +" + std::to_string(*p.offset) + " is outside " + fn.name);
    // A probe in the middle of an instruction corrupts it (x86 kprobes
    // check; uprobes and other architectures do not).
    if (!options_.force && !debug_.is_instruction_start(fn, address)) {
      if (!debug_.has_dwarf() && debug_.instruction_oracle() == "the line table")
        return fail("offset +" + std::to_string(*p.offset) + " of " + fn.name + " (" + hex(address) +
                        ") cannot be checked to start an instruction without a line table: " + debug_.provenance().dwarf_note(),
                    "give -f if you know it does (perf probe does not check)");
      return fail("offset +" + std::to_string(*p.offset) + " of " + fn.name + " (" + hex(address) +
                      ") is not where an instruction starts, by " + debug_.instruction_oracle(),
                  "use an offset of a line start (kprobe-probe -D 'FUNC:LINE' shows them), or -f if you know it is one");
    }
    return std::vector<Site>{{&fn, address, fn.name + "+" + std::to_string(*p.offset) + file_suffix(fn)}};
  }
  if (!p.lazy_pattern.empty()) return pattern_sites_in(fn);
  if (p.line == 0) return std::vector<Site>{{&fn, debug_.probe_entry(fn), fn.name + file_suffix(fn)}};

  int absolute = fn.decl_line + p.line;
  std::vector<Site> sites;
  for (const dwarf::LineSite &ls : debug_.line_sites_in(fn, absolute)) {
    uint64_t address = past_prologue(fn, ls.address);
    sites.push_back({&fn, address, line_point(fn, absolute, address)});
  }
  if (sites.empty()) {
    std::vector<std::string> near;
    for (int l : debug_.lines_with_code(fn))
      if (l - fn.decl_line >= p.line - 3 && l - fn.decl_line <= p.line + 3)
        near.push_back(fn.name + ":" + std::to_string(l - fn.decl_line));
    return fail("line " + std::to_string(p.line) + " of " + fn.name + " (" + basename_of(fn.decl_file) + ":" +
                    std::to_string(absolute) + ") has no code",
                near.empty() ? "list the lines with code with 'kprobe-probe -L " + fn.name + "'"
                             : "lines with code near it: " + join(near));
  }
  return sites;
}

Result<std::vector<Site>> Builder::go_return_sites(const dwarf::Function &fn) {
  auto returns = debug_.return_instructions(fn);
  if (!returns)
    return fail("refusing a return probe on the Go function " + fn.name +
                    ": a uretprobe would kill the program when Go's runtime walks or moves the stack, and " +
                    returns.error().message,
                "probe a line before its return ('kprobe-probe -L " + fn.name + "' lists them)");
  std::vector<Site> sites;
  for (uint64_t address : *returns) sites.push_back({&fn, address, fn.name + file_suffix(fn) + "%return", true});
  return sites;
}

bool Builder::carries_goroutine(const Site &site) {
  const ProbePoint &p = spec_.point;
  bool entry = !p.function.empty() && !p.is_return && p.line == 0 && !p.offset && p.lazy_pattern.empty();
  return regs_->e_machine == 62 /* EM_X86_64 */ && (site.at_return_instruction || entry) &&
         debug_.is_go_function(*site.function);
}

Result<std::vector<Site>> Builder::pattern_sites_in(const dwarf::Function &fn) {
  auto source = read_source(fn.decl_file, options_.source_dir, options_.prefix_map, debug_.elf().build_id());
  if (!source) return fail(source.error().message, source.error().hint);
  std::vector<int> code = debug_.lines_with_code(fn);
  std::vector<Site> sites;
  for (int line : code) {
    if (line < fn.decl_line || line > static_cast<int>(source->lines.size())) continue;
    if (!lazy_match(source->lines[line - 1], spec_.point.lazy_pattern)) continue;
    for (const dwarf::LineSite &ls : debug_.line_sites_in(fn, line)) {
      uint64_t address = past_prologue(fn, ls.address);
      sites.push_back({&fn, address, line_point(fn, line, address)});
    }
  }
  if (sites.empty())
    return fail("no line of " + fn.name + " with code matches the pattern '" + spec_.point.lazy_pattern + "'",
                "see its lines with 'kprobe-probe -L " + fn.name + "'");
  return sites;
}

Result<std::vector<Site>> Builder::file_pattern_sites() {
  const ProbePoint &p = spec_.point;
  std::string path = debug_.find_source_file(p.file);
  if (path.empty()) return fail("no source file '" + p.file + "' in '" + debug_.elf().path() + "'");
  auto source = read_source(path, options_.source_dir, options_.prefix_map, debug_.elf().build_id());
  if (!source) return fail(source.error().message, source.error().hint);
  std::vector<std::pair<AddressLine, dwarf::Function>> found;
  for (int line = 1; line <= static_cast<int>(source->lines.size()); ++line) {
    if (!lazy_match(source->lines[line - 1], p.lazy_pattern)) continue;
    for (auto &[site, fn] : debug_.file_line_sites(p.file, line)) found.push_back({{site.address, line}, fn});
  }
  if (found.empty()) return fail("no line of " + p.file + " with code matches the pattern '" + p.lazy_pattern + "'");
  for (auto &f : found) functions_.push_back(f.second);
  // Pointers into functions_ only once it has stopped growing.
  std::vector<Site> sites;
  for (size_t i = 0; i < found.size(); ++i) {
    uint64_t address = past_prologue(functions_[i], found[i].first.address);
    sites.push_back({&functions_[i], address, line_point(functions_[i], found[i].first.line, address)});
  }
  return sites;
}

Result<Site> Builder::address_site(uint64_t address) {
  auto place = debug_.source_of(address);
  // Without DWARF there (no DWARF at all, or code written in assembly),
  // the function symbol that holds the address.
  if (!place) {
    auto symbol = debug_.elf().symbolize(address);
    if (symbol)
      for (const dwarf::Function &fn : debug_.function_symbols(symbol->first))
        if (fn.entry == address - symbol->second) {
          functions_.push_back(fn);
          return Site{&functions_.back(), address, fn.name + "+" + std::to_string(symbol->second)};
        }
    return fail("no function covers address " + hex(address));
  }
  auto fns = debug_.find_functions(place->function, "", dwarf::InlineCopies::Include);
  for (const dwarf::Function &fn : fns) {
    for (const dwarf::AddressRange &r : fn.ranges) {
      if (!r.contains(address)) continue;
      functions_.push_back(fn);
      return Site{&functions_.back(), address, fn.name + "+" + std::to_string(address - fn.entry) + file_suffix(fn)};
    }
  }
  return fail("no function covers address " + hex(address));
}

Result<std::vector<TraceDefinition>> Builder::entry_companions(const TraceDefinition &site_def, const Site &site,
                                                      std::vector<FetchArg> args) {
  TraceDefinition entry = site_def;
  // The mark first (util/companion_mark.h): a companion is known as
  // one from its definition alone.
  entry.args = {companion_mark(companion_entry_mark)};
  for (FetchArg &a : args) {
    a.at_entry = false;
    entry.args.push_back(std::move(a));
  }
  entry.is_return = false;
  entry.maxactive.reset();
  entry.event = std::string(companion_entry_suffix);
  uint64_t address = site.function->frame_entry;
  if (debug_.is_go_function(*site.function))
    return fail("refusing to read entry values at " + site.point + ": their probes pair at the Go function's return "
                    "by a uretprobe, which would kill the program when Go's runtime walks or moves the stack",
                "read the values at the entry ('" + site.function->name + "') in a probe of their own");
  // That entry comes from the DWARF: as a site is, it is checked against
  // the binary before a probe goes there. A function of the symbol table
  // starts at it (an instruction start), unless -f.
  auto symbol = debug_.elf().symbolize(address);
  if (!options_.force && (!symbol || symbol->second != 0))
    return fail("refusing the entry companion of " + site.point + " at " + hex(address) + ": " +
                    (symbol ? "the symbol table puts it inside " + debug_.display_symbol(symbol->first)
                            : std::string("no symbol covers it")) +
                    ", where a function should start",
                "a cache file may be damaged: run again with --no-cache; if that gives the same, report it");
  if (entry.kind == TraceDefinition::Kind::Uprobe) {
    auto offset = debug_.elf().file_offset(address);
    if (!offset) return std::move(offset).error();
    entry.offset = *offset;
  } else {
    auto placement = place_kernel_probe(debug_.elf(), address, options_.module);
    if (!placement) return fail(placement.error().message + " (the function entry of " + site.point + ")",
                                placement.error().hint);
    entry.symbol = placement->definition_symbol();
    entry.offset = placement->offset();
    companion_placement_ = *placement;
  }
  TraceDefinition exit = entry;
  exit.args = {companion_mark(companion_exit_mark)};
  exit.is_return = true;
  exit.event = std::string(companion_exit_suffix);
  return std::vector<TraceDefinition>{std::move(entry), std::move(exit)};
}

Result<ResolvedProbe> Builder::definition_at(const Site &site) {
  if (Status checked = check_final_site(debug_, *site.function, site.address, options_.force); !checked)
    return std::move(checked).error();
  ResolvedProbe probe;
  probe.address = site.address;
  probe.point = site.point;
  probe.function = *site.function;
  TraceDefinition &def = probe.definition;
  def.is_return = spec_.point.is_return && !site.at_return_instruction;
  FetchFormatter formatter{*regs_, debug_};
  if (!options_.target_path.empty()) {
    auto offset = debug_.elf().file_offset(site.address);
    if (!offset) return std::move(offset).error();
    def.kind = TraceDefinition::Kind::Uprobe;
    def.path = options_.target_path;
    def.offset = *offset;
    formatter.uprobe = true;
    formatter.probe_address = site.address;
    formatter.probe_file_offset = *offset;
  } else {
    // By symbol and offset, which survive KASLR; a symbol the kernel holds
    // more than once by a unique anchor (src/definition/kernel_anchor.h).
    auto placement = place_kernel_probe(debug_.elf(), site.address, options_.module, site.function->symbol);
    if (!placement) return fail(placement.error().message + " (" + site.point + ")", placement.error().hint);
    if (!areas_) areas_ = KernelAreas::of(debug_.elf());
    if (auto area = areas_->area_of(site.address))
      return fail("cannot probe " + site.point + ": it is in the kernel's " + *area + ", which kprobes refuse",
                  "that code runs where a kprobe would recurse or is not yet safe to instrument; probe its caller");
    if (def.is_return) def.maxactive = options_.maxactive;
    def.kind = TraceDefinition::Kind::Kprobe;
    def.symbol = placement->definition_symbol();
    def.offset = placement->offset();
    probe.placement = *placement;
  }
  std::string where = site.point;
  if (auto sym = debug_.elf().symbolize(site.address))
    where += " (" + debug_.display_symbol(sym->first) + "+" + hex(sym->second) + ")";
  ArgSite arg_site{debug_, *site.function, site.address, spec_.point.is_return, formatter, where,
                   site.at_return_instruction, options_.max_items, def.kind == TraceDefinition::Kind::Uprobe};
  auto args = resolve_args(spec_, arg_site);
  if (!args) return std::move(args).error();
  std::vector<FetchArg> at_entry;
  for (FetchArg &arg : *args) (arg.at_entry ? at_entry : def.args).push_back(std::move(arg));
  if (carries_goroutine(site)) def.args.push_back(FetchArg{goroutine_field, goroutine_fetch_x86_64, "x64"});
  if (!at_entry.empty()) {
    auto companions = entry_companions(def, site, std::move(at_entry));
    if (!companions) return std::move(companions).error();
    probe.companions = std::move(*companions);
    probe.companion_placement = companion_placement_;
  }
  return probe;
}

}  // namespace probe_building

}  // namespace kpp
