// The making of a spec's probes behind build_probe() (probe_builder.h),
// internal to src/definition: the sites a probe point names and the Builder
// that finds them and writes their definitions (builder.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "src/definition/kernel_areas.h"
#include "src/definition/probe_builder.h"

namespace kpp::probe_building {

struct AddressLine {
  uint64_t address;
  int line;
};

struct Site {
  const dwarf::Function *function;
  uint64_t address;
  std::string point;  // perf syntax, for --list and messages
  bool at_return_instruction = false;  // a Go function's return, probed where it happens (no uretprobe)
};

class Builder {
 public:
  Builder(const ProbeSpec &spec, dwarf::DebugInfo &debug, const BuildOptions &options);

  Result<ResolvedSpec> run();

 private:
  // Every site the spec's point names: an address, a function's (entry,
  // offset, line or return), a lazy pattern's or a file:line's.
  Result<std::vector<Site>> point_sites();

  // The sites of FUNC[@FILE][:LINE|+OFF|%return] in each body of FUNC.
  Result<std::vector<Site>> function_sites();

  // A site whose arguments cannot be read (an inlined copy where the value
  // was folded away, say) is left out with a warning, as long as some site
  // remains: the others still show what was asked for.
  Result<ResolvedSpec> definitions_at(const std::vector<Site> &sites);

  Error fail(const std::string &message, const std::string &hint = {});

  // Without DWARF (dwarf_note() says where it was looked for) a probe is
  // placed by the symbol tables: FUNC, FUNC+OFF, FUNC%return and 0xADDR, as
  // perf probe places them. Lines, source files and lazy patterns need the
  // line tables, and are refused here with that reason.
  std::optional<Error> needs_dwarf();

  // One address is one site, however many DIEs or units lead to it (a
  // function's DIE in several units, an inlined copy found twice): a second
  // probe there would count every call twice, and the kernel refuses the
  // same definition twice. The first (the out-of-line body, by entry order) stays.
  static void drop_repeated_addresses(std::vector<Site> &sites);

  Error too_many_sites(const std::vector<Site> &sites);

  bool returns_only_retval() const;

  Error no_such_function();

  // A line whose code starts at the function's first instruction (a
  // function on one line) is probed past the prologue when there is one:
  // before it, the frame that the variables' locations name is not set up.
  uint64_t past_prologue(const dwarf::Function &fn, uint64_t address);

  // Inlined copies come from the name index (dwarf/index/name_index.h): built
  // once per binary in parallel and cached, so a vmlinux pays it once.
  dwarf::InlineCopies inline_copies();

  std::string file_suffix(const dwarf::Function &fn);
  // A line site as --list will show it (perf_point): where inlining puts
  // several functions' lines at one address, the one DWARF says starts there.
  std::string line_point(const dwarf::Function &fn, int absolute_line, uint64_t address);

  Result<std::vector<Site>> sites_in(const dwarf::Function &fn);

  // FUNC%return on Go code: a probe on each return instruction, never a
  // uretprobe, whose trampoline address in place of the return address
  // kills a Go program when its runtime walks or moves the stack.
  Result<std::vector<Site>> go_return_sites(const dwarf::Function &fn);

  // A Go function's entry and returns carry the goroutine (r14 holds it
  // there on x86-64), which latency pairs match calls by.
  bool carries_goroutine(const Site &site);

  // FUNC;PTN: the lines of the function whose source matches the pattern.
  Result<std::vector<Site>> pattern_sites_in(const dwarf::Function &fn);

  // SRC;PTN: every line of the file with code whose source matches.
  Result<std::vector<Site>> file_pattern_sites();

  // A raw address: its function gives the variables and the name.
  Result<Site> address_site(uint64_t address);

  // The probes at the entry of the function the site's frame belongs to
  // that read `args` there, and pop them at its return.
  Result<std::vector<TraceDefinition>> entry_companions(const TraceDefinition &site_def, const Site &site,
                                                        std::vector<FetchArg> args);

  Result<ResolvedProbe> definition_at(const Site &site);

  const ProbeSpec &spec_;
  dwarf::DebugInfo &debug_;
  const BuildOptions &options_;
  const arch::Registers *regs_ = nullptr;
  std::vector<dwarf::Function> functions_;
  std::vector<uint64_t> line_addresses_;
  std::optional<KernelAreas> areas_;  // read once, at the first kernel site
  KernelPlacement companion_placement_;  // of the last entry_companions()
};

}  // namespace kpp::probe_building
