// The one road from what the user typed to what the kernel is given:
// plan() turns specs into an immutable Plan (definitions with their final
// names and placement, warnings, and what a session needs to know about the
// events), install() applies a Plan all or nothing. `-D` prints a plan,
// `--add`, `live --add` and `demo` install one; nothing edits a definition
// once it is planned.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "dwarf/debug_info.h"
#include "src/btf/btf.h"
#include "src/definition/probe_builder.h"
#include "src/definition/trace_definition.h"
#include "src/kernel/kallsyms.h"
#include "src/spec/probe_spec.h"
#include "util/result.h"

namespace kpp {

// What the specs are resolved against: a program's or kernel's DWARF, or
// (kernel only) the running kernel's BTF. Borrowed, not owned.
struct PlanTarget {
  std::string path;                 // absolute path of the -x program; empty for the kernel
  std::string module;               // -m: the module's name as the kernel knows it; empty otherwise
  dwarf::DebugInfo *debug = nullptr;
  const btf::Btf *btf = nullptr;    // used when debug is null
  const arch::Registers *btf_regs = nullptr;  // the running machine's registers, for BTF probes
};

// What the running kernel holds that planning depends on, read once.
struct KernelSnapshot {
  // "group:event" of every dynamic event that exists now (names are chosen
  // not to clash with them).
  std::set<std::string> taken;
  // The running kernel's symbols: kernel sites are placed on it (KASLR,
  // names a module holds too). Absent: definitions stay as the debug file
  // places them (an offline vmlinux, kallsyms hidden).
  std::optional<Kallsyms> kallsyms;
  // For an install: a site that cannot be placed on the running kernel, or
  // that it refuses (kprobe blacklist, notrace), is an error. Otherwise (-D)
  // a site that cannot be placed prints as the debug file places it.
  bool strict = false;
  // Whether the running kernel takes fprobe events (its tracefs README says
  // so); --fprobe on an install is refused where it does not.
  bool fprobe_events = false;
  // Whether the running kernel's probe events read BTF member chains of a
  // parameter by name ("file->f_pos": CONFIG_PROBE_EVENTS_BTF_ARGS, Linux 6.6
  // on; its tracefs README says so): the BTF fallback writes them as typed.
  bool btf_member_chains = false;
};

// One site of a planned event.
struct PlanSite {
  size_t definition = 0;     // index into Plan::definitions()
  std::string point;         // perf syntax: "walk:5@prog.c", "add@prog.c", "add%return@prog.c"
  uint64_t address = 0;      // link-time address in the binary
  std::string function;      // the function (or inlined copy) the site is in
  uint64_t function_offset = 0;  // address - that function's (copy's) entry
  bool inlined = false;      // in an inlined copy
  // (No source file and line: naming each site's line took a walk of its
  // unit's address map and line table, ~40% of a warm -D of python3.11's
  // PyUnicode_FromString with its 23 inlined copies, and no command read
  // them. Who needs them asks the debug info: DebugInfo::source_of(address).)
  // Equal for a function's entry probe and its return probe in the same
  // binary ("BINARY@0xENTRY"), whatever the events are called; empty for
  // any other site (a line, an offset, an inlined copy).
  std::string pair_key;
};

// One event of a plan: a probe the user asked for, or a companion probe
// that reads entry values for one (DW_OP_entry_value, see
// ResolvedProbe::companions). Companions are also marked in their own
// definitions (util/companion_mark.h), so that a session that did not
// plan can tell them from tracefs alone.
struct PlanEvent {
  enum class Role { Probe, EntryCompanion, ExitCompanion };
  std::string group, event;
  Role role = Role::Probe;
  bool is_return = false;
  std::string companion_of;  // companions: "group:event" of the probe they serve; else empty
  std::string pair_key;      // the sites' pair keys, joined with ',' (empty when none pairs)
  size_t spec = 0;           // index of the spec it came from
  std::string long_event;    // the name it would have had when it was shortened to fit; else empty
  std::vector<PlanSite> sites;

  std::string qualified_name() const { return group + ":" + event; }
};

class Plan {
 public:
  // Every definition to write, in order: a site's companions (once per
  // function entry) before the site itself.
  const std::vector<TraceDefinition> &definitions() const { return definitions_; }
  const std::vector<PlanEvent> &events() const { return events_; }
  // Sites left out and why ("skipped sq@prog.c: ..."), and notes for -v.
  const std::vector<std::string> &warnings() const { return warnings_; }
  const std::vector<std::string> &notes() const { return notes_; }
  const std::vector<std::string> &specs() const { return specs_; }
  // The -x program, empty for the kernel.
  const std::string &target_path() const { return target_path_; }
  bool kernel() const { return target_path_.empty(); }
  // The planned event named "group:event", or nullptr.
  const PlanEvent *event(const std::string &qualified) const;
  // Kernel plans: where each definition points (parallel to definitions()),
  // for explaining a refusal the kernel gives no reason for.
  const std::vector<KernelPlacement> &placements() const { return placements_; }

 private:
  friend class Planner;
  std::vector<TraceDefinition> definitions_;
  std::vector<KernelPlacement> placements_;
  std::vector<PlanEvent> events_;
  std::vector<std::string> warnings_, notes_, specs_;
  std::string target_path_;
};

struct PlanOptions {
  BuildOptions build;
  // -f: a name that is taken gets a suffix (_1, _2, ...) instead of an error.
  bool allow_suffix = false;
  // --fprobe: kernel entry and return probes become fprobe events
  // (src/definition/fprobe.h); a site an fprobe cannot take is an error.
  bool fprobe = false;
};

// Resolves, names and places `specs` (parsed once by the command). Errors:
// a spec that did not parse or does not resolve, a name taken (unless allow_suffix), a string the
// kernel's parser would split or refuse (check_definition_text), and with
// a strict snapshot a site the running kernel cannot place or refuses.
Result<Plan> plan(const ParsedSpecs &specs, const PlanTarget &target, const PlanOptions &options,
                  const KernelSnapshot &snapshot);

}  // namespace kpp
