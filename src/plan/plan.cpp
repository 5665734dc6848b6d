// plan(): resolve every spec, name the events, place kernel sites on the
// running kernel, check every string the kernel will parse, and freeze the
// result. The drafts (ResolvedSpec) are this file's own until frozen.
#include "src/plan/plan.h"

#include <fnmatch.h>

#include <algorithm>

#include "src/definition/btf_probe.h"
#include "src/definition/definition_text.h"
#include "src/definition/fprobe.h"
#include "src/kernel/kernel_refusals.h"
#include "src/sdt/sdt_probe.h"
#include "src/spec/probe_spec.h"
#include "util/strings.h"

namespace kpp {

const PlanEvent *Plan::event(const std::string &qualified) const {
  for (const PlanEvent &e : events_)
    if (e.qualified_name() == qualified) return &e;
  return nullptr;
}

class Planner {
 public:
  Planner(const PlanTarget &target, const PlanOptions &options, const KernelSnapshot &snapshot)
      : target_(target), options_(options), snapshot_(snapshot) {}

  Result<Plan> run(const ParsedSpecs &specs) {
    plan_.target_path_ = target_.path;
    for (const ParsedSpec &parsed : specs) plan_.specs_.push_back(parsed.text);
    if (!target_.path.empty())
      if (Status s = check_probe_path(target_.path); !s) return std::move(s).error();
    std::vector<ResolvedSpec> drafts;
    for (const ParsedSpec &parsed : specs) {
      if (!parsed.spec) return parsed.spec.error();
      auto expanded = expand_function_glob(*parsed.spec);
      if (!expanded) return std::move(expanded).error();
      for (const ProbeSpec &one : *expanded) {
        auto draft = resolve(one);
        if (!draft) return std::move(draft).error();
        plan_.warnings_.insert(plan_.warnings_.end(), draft->warnings.begin(), draft->warnings.end());
        drafts.push_back(std::move(*draft));
      }
    }
    // Whether the index cache was used, built or rebuilt (and why).
    if (target_.debug && !target_.debug->provenance().index_note().empty()) plan_.notes_.push_back(target_.debug->provenance().index_note());
    if (Status named = assign_event_names(drafts, target_.path, snapshot_.taken, options_.allow_suffix); !named)
      return std::move(named).error();
    if (target_.path.empty())
      if (Status placed = place(drafts); !placed) return std::move(placed).error();
    freeze(drafts);
    if (options_.fprobe)
      if (Status s = as_fprobes(); !s) return std::move(s).error();
    for (const TraceDefinition &def : plan_.definitions_)
      if (Status s = check_definition_text(def); !s)
        return Error("cannot define " + def.qualified_name() + ": " + s.error().message, s.error().hint);
    return std::move(plan_);
  }

 private:
  Result<ResolvedSpec> resolve(const ProbeSpec &spec) {
    // A marker's place and arguments come from its ELF note, not from DWARF.
    if (spec.point.sdt) return sdt::build_sdt_probe(spec, options_.build);
    if (target_.debug) return build_probe(spec, *target_.debug, options_.build);
    if (!target_.btf || !target_.btf_regs)
      return Error("no register table for this machine, which BTF probes need");
    return build_btf_probe(spec, *target_.btf, *target_.btf_regs, options_.build);
  }

  // A FUNC with '*' or '?' ("wal*") is a glob over the functions with code,
  // as perf takes it: one spec per match, each named after its function.
  // Names starting with '_' (internals) match only a glob that starts so.
  Result<std::vector<ProbeSpec>> expand_function_glob(const ProbeSpec &spec) {
    const std::string &glob = spec.point.function;
    if (spec.point.sdt || !is_function_glob(glob) || !target_.debug)
      return std::vector<ProbeSpec>{spec};
    std::vector<ProbeSpec> out;
    for (std::string_view view : target_.debug->function_names()) {
      std::string name(view);
      if (name.empty() || (name[0] == '_' && glob[0] != '_') || fnmatch(glob.c_str(), name.c_str(), 0) != 0) continue;
      if (out.size() == options_.build.max_probes)
        return Error("'" + glob + "' matches more than --max-probes " + std::to_string(options_.build.max_probes) +
                         " functions",
                     "narrow the pattern, or raise --max-probes");
      ProbeSpec one = spec;
      one.point.function = name;
      if (size_t at = one.text.find(glob); at != std::string::npos) one.text.replace(at, glob.size(), name);
      out.push_back(std::move(one));
    }
    if (out.empty())
      return Error("no function matches '" + glob + "'", "list the functions with 'kprobe-probe -F'");
    return out;
  }

  // Kernel sites on the running kernel. For an install every site must be
  // placed and none refused; for -D a plan that does not place (another
  // kernel's vmlinux) prints as the debug file places it.
  Status place(std::vector<ResolvedSpec> &drafts) {
    const Kallsyms *kallsyms = snapshot_.kallsyms ? &*snapshot_.kallsyms : nullptr;
    if (snapshot_.strict) return check_running_kernel(drafts, kallsyms);
    if (!kallsyms) return Ok{};
    std::vector<ResolvedSpec> trial = drafts;
    std::vector<KernelSite> sites = all_kernel_sites(trial);
    if (place_on_running_kernel(sites, *kallsyms)) drafts = std::move(trial);
    return Ok{};
  }

  std::string binary() const {
    if (!target_.path.empty()) return target_.path;
    return target_.module.empty() ? "vmlinux" : target_.module;
  }

  // A function's entry (FUNC) or return (FUNC%return) site of an
  // out-of-line body pairs with the other of the same body.
  std::string pair_key(const ProbeSpec &spec, const ResolvedProbe &site) const {
    const ProbePoint &p = spec.point;
    bool function_entry = !p.function.empty() && p.line == 0 && !p.offset && p.lazy_pattern.empty() && !p.address;
    if (!function_entry || site.function.inlined || site.function.name.empty()) return {};
    return binary() + "@" + hex(site.function.entry);
  }

  PlanEvent &event_for(const TraceDefinition &def, PlanEvent::Role role, size_t spec) {
    for (PlanEvent &e : plan_.events_)
      if (e.group == def.group && e.event == def.event) return e;
    PlanEvent e;
    e.group = def.group;
    e.event = def.event;
    e.role = role;
    e.is_return = def.is_return;
    e.spec = spec;
    plan_.events_.push_back(std::move(e));
    return plan_.events_.back();
  }

  size_t add_definition(const TraceDefinition &def, const KernelPlacement &placement) {
    auto it = std::find(plan_.definitions_.begin(), plan_.definitions_.end(), def);
    if (it != plan_.definitions_.end()) return static_cast<size_t>(it - plan_.definitions_.begin());
    plan_.definitions_.push_back(def);
    plan_.placements_.push_back(placement);
    return plan_.definitions_.size() - 1;
  }

  PlanSite site_at(uint64_t address, const dwarf::Function *function) {
    PlanSite s;
    s.address = address;
    if (function && !function->name.empty()) {
      s.function = function->name;
      s.inlined = function->inlined;
      s.function_offset = address - function->entry;
    }
    return s;
  }

  // Part of planning, before the plan is handed out: every definition of a
  // kernel plan written as an fprobe.
  Status as_fprobes() {
    if (!target_.path.empty()) return Error("--fprobe is for kernel functions; a program is probed with uprobes");
    if (snapshot_.strict && !snapshot_.fprobe_events)
      return Error("this kernel has no fprobe events (CONFIG_FPROBE_EVENTS; 6.1 has none, 6.12 has them)",
                   "drop --fprobe: kprobes do the same here");
    const arch::Registers *regs = target_.debug ? arch::for_machine(target_.debug->elf().machine()) : target_.btf_regs;
    if (!regs) return Error("--fprobe: no register table for this machine");
    for (TraceDefinition &def : plan_.definitions_) {
      auto f = to_fprobe(def, *regs);
      if (!f) return std::move(f).error();
      def = std::move(*f);
    }
    return Ok{};
  }

  void freeze(const std::vector<ResolvedSpec> &drafts) {
    for (size_t i = 0; i < drafts.size(); ++i) {
      const ResolvedSpec &r = drafts[i];
      for (const ResolvedProbe &p : r.sites) {
        std::string owner = p.definition.qualified_name();
        for (const TraceDefinition &c : p.companions) {
          PlanSite cs = site_at(p.function.frame_entry, nullptr);
          cs.point = p.point;
          cs.definition = add_definition(c, p.companion_placement);
          auto role = c.is_return ? PlanEvent::Role::ExitCompanion : PlanEvent::Role::EntryCompanion;
          PlanEvent &ce = event_for(c, role, i);
          ce.companion_of = owner;
          if (std::none_of(ce.sites.begin(), ce.sites.end(), [&](const PlanSite &s) { return s.definition == cs.definition; }))
            ce.sites.push_back(std::move(cs));
        }
        PlanSite s = site_at(p.address, p.function.name.empty() ? nullptr : &p.function);
        s.point = p.point;
        s.pair_key = pair_key(r.spec, p);
        s.definition = add_definition(p.definition, p.placement);
        PlanEvent &e = event_for(p.definition, PlanEvent::Role::Probe, i);
        if (!p.long_event.empty()) e.long_event = p.long_event;
        e.sites.push_back(std::move(s));
      }
    }
    for (PlanEvent &e : plan_.events_) {
      std::vector<std::string> keys;
      for (const PlanSite &s : e.sites)
        if (!s.pair_key.empty()) keys.push_back(s.pair_key);
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      e.pair_key = join(keys, ",");
    }
  }

  const PlanTarget &target_;
  const PlanOptions &options_;
  const KernelSnapshot &snapshot_;
  Plan plan_;
};

Result<Plan> plan(const ParsedSpecs &specs, const PlanTarget &target, const PlanOptions &options,
                  const KernelSnapshot &snapshot) {
  return Planner(target, options, snapshot).run(specs);
}

}  // namespace kpp
