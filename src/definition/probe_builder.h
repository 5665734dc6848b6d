// From what the user typed (ProbeSpec) and the DWARF of the target to the
// definitions the kernel takes. Nothing here touches the system: the
// result is printed by -D or handed to the probe engine by --add.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dwarf/debug_info.h"
#include "src/definition/kernel_anchor.h"
#include "src/definition/trace_definition.h"
#include "src/spec/probe_spec.h"
#include "src/util/result.h"

namespace kpp {

struct BuildOptions {
  std::string target_path;  // the -x program or library (absolute); empty for the kernel
  std::string module;       // -m: kernel module name; empty for vmlinux
  size_t max_probes = 128;  // --max-probes: bound on the sites one spec may expand to
  unsigned max_items = 8;   // --max-items: elements of a sequence fetched (1-64)
  bool no_inlines = false;  // --no-inlines: out-of-line bodies only
  bool force = false;       // -f: allow a +OFFS the line table does not show to start an instruction
  std::optional<unsigned> maxactive;  // --maxactive: kretprobe instances (definition rN:)
  std::string source_dir;   // -s: where sources are, for lazy patterns (;PTN)
  std::vector<std::pair<std::string, std::string>> prefix_map;  // --prefix-map OLD=NEW (src/lookup/source_file.h)
  // The kernel reads BTF member chains of parameters itself ("file->f_pos",
  // KernelSnapshot::btf_member_chains): the BTF fallback may write them.
  bool btf_member_chains = false;
};

// One site of one probe: the definition and, in perf syntax, where it is.
struct ResolvedProbe {
  TraceDefinition definition;
  std::string point;        // "walk:5@prog.c", "add@prog.c", "add%return@prog.c"
  uint64_t address = 0;     // link-time address
  dwarf::Function function; // the function (or inlined copy) the site is in
  // Probes that read, at the function's entry, the values the site needs
  // from there (DW_OP_entry_value): "EVENT__entry" with those args and
  // "EVENT__exit" (a return probe), so that the event stream can join them
  // per thread, also through recursion. Their `event` holds just the suffix
  // until assign_event_names() names them.
  std::vector<TraceDefinition> companions;
  // When the event's name was too long for the kernel and was shortened
  // (fit_event_name), the name it would have had; else empty.
  std::string long_event;
  // Kernel probes: where the definition and its companions point, for the
  // checks against the running kernel (kallsyms, the kprobe blacklist).
  KernelPlacement placement;
  KernelPlacement companion_placement;
};

// All sites of one spec; they share one event name (a multi-probe event).
struct ResolvedSpec {
  ProbeSpec spec;
  std::vector<ResolvedProbe> sites;
  std::vector<std::string> warnings;  // sites left out and why ("skipped sq@prog.c: ...")
};

// Resolves `spec` against `debug`. The event name is left to assign_event_names().
// Errors name the spec, the place and the reason, with a hint when there is
// something to try (similar function names, lines with code, variables in scope).
Result<ResolvedSpec> build_probe(const ProbeSpec &spec, dwarf::DebugInfo &debug, const BuildOptions &options);

// Every definition to write for `specs`, in order: each site's companions
// (once per function entry) before the site itself.
std::vector<TraceDefinition> all_definitions(const std::vector<ResolvedSpec> &specs);

// A kernel definition with where it points; `all_kernel_sites` lists every
// kernel definition of `specs` (companions once per site that has them).
struct KernelSite {
  TraceDefinition *definition;
  KernelPlacement placement;
};
std::vector<KernelSite> all_kernel_sites(std::vector<ResolvedSpec> &specs);

// perf's default group: "probe" for the kernel, "probe_<exe>" for a program
// (the basename cut at its first character that is not alphanumeric or '_').
std::string default_group(const std::string &target_path);

// Gives every resolved spec its group and event: the explicit GROUP:EVENT=,
// else perf's defaults (func, func_L12, func__return). A name in `taken`
// ("group:event", the events that exist already, plus those named earlier in
// this same call) is refused unless `allow_suffix`, which adds _1, _2, ...
// An event name the kernel takes: at most `limit` bytes (the kernel's
// MAX_EVENT_NAME_LEN less the NUL, 63, by default). A longer name keeps its
// start and its last `keep_tail` bytes ("_L12", "__return", "_1") with 8 hex
// digits of a hash of the whole name between them: the same name is always
// shortened the same way, and long names that differ anywhere stay distinct.
std::string fit_event_name(const std::string &name, size_t keep_tail, size_t limit = 63);

Status assign_event_names(std::vector<ResolvedSpec> &specs, const std::string &target_path,
                          std::set<std::string> taken, bool allow_suffix);

}  // namespace kpp
