#include "src/cli/probe_target.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "dwarf/debuginfod.h"
#include "src/kernel/build_id.h"
#include "src/kernel/debug_paths.h"
#include "src/sdt/sdt_probe.h"
#include "src/spec/probe_spec.h"
#include "src/stream/target_process.h"
#include "util/files.h"
#include "util/same_file.h"
#include "util/strings.h"

namespace kpp {

namespace {

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Whether the command reads a variable's location: -V does, and a probe
// with arguments; -L, -F and probes without arguments do not. A spec that
// does not parse (reported later) is taken as one that does.
bool reads_locations(const CliOptions &options, const ParsedSpecs &specs) {
  if (options.command != CliOptions::Command::Probe || !options.vars.empty()) return true;
  for (const ParsedSpec &parsed : specs)
    if (!parsed.spec || !parsed.spec->args.empty()) return true;
  return false;
}

// The probe target's options: perf demangles a program's names unless
// --no-demangle, the kernel's and its modules' only with --demangle-kernel.
dwarf::OpenOptions target_open_options(const CliOptions &options, const ParsedSpecs &specs) {
  dwarf::OpenOptions open = debug_open_options(options);
  if (options.exec.empty()) open.demangle = options.demangle_kernel;
  open.reads_locations = reads_locations(options, specs);
  open.debuginfod_fetch = true;  // the target's debug file is fetched here, within the download's bounds
  return open;
}

// A vmlinux or .ko built from other sources than what runs would put probes
// at wrong places: refuse it unless forced. -D works offline, on any files.
Status check_build_id(const CliOptions &options, const dwarf::ElfFacts &elf, const std::string &running,
                      const std::string &what) {
  // Only adding probes to this kernel needs the match; -D, -L, -V and -F
  // read any kernel's vmlinux offline.
  bool offline = options.add.empty();
  if (offline || options.force || running.empty()) return Ok{};
  if (elf.build_id() == running) return Ok{};
  // No build-id proves nothing: the file may be any kernel's.
  if (elf.build_id().empty())
    return Error("'" + elf.path() + "' has no build-id: it cannot be checked against the running " + what +
                     " (build-id " + running + ")",
                 "give the " + what + "'s own debug file (-k/-m PATH), or -f to use it anyway (probes may land at "
                 "wrong places)");
  return Error("'" + elf.path() + "' does not match the running " + what + ": its build-id is " + elf.build_id() +
                   ", the running " + what + "'s is " + running,
               "give the matching file (-k/-m PATH), or -f to use it anyway (probes may land at wrong places)");
}

// The first candidate that exists; when none does, the debuginfod servers
// by `build_id` (the running kernel's or module's) if DEBUGINFOD_URLS names
// some. Null when nothing was found; `tried` then says where it looked.
Result<std::unique_ptr<dwarf::DebugInfo>> open_first(const std::vector<std::string> &candidates, std::string &tried,
                                                     const std::string &build_id, const dwarf::OpenOptions &open_options) {
  for (const std::string &candidate : candidates) {
    if (access(candidate.c_str(), R_OK) == 0) return dwarf::DebugInfo::open(candidate, open_options);
    tried += "\n    " + candidate;
  }
  if (!build_id.empty() && dwarf::debuginfod_enabled()) {
    auto fetched = dwarf::debuginfod_find_debuginfo(build_id);
    if (fetched) return dwarf::DebugInfo::open(*fetched, open_options);
    tried += "\n    " + fetched.error().message;
  }
  return std::unique_ptr<dwarf::DebugInfo>();
}

// `target` reading `debug`, a kernel's or a module's whose running copy has
// the build-id `running` (empty when unknown); refused when they differ
// (check_build_id).
Result<ProbeTarget> with_debug_info(ProbeTarget target, std::unique_ptr<dwarf::DebugInfo> debug,
                                    const std::string &running, const std::string &what, const CliOptions &options) {
  Status matches = check_build_id(options, debug->elf(), running, what);
  if (!matches) return std::move(matches).error();
  target.runs_here = !running.empty() && debug->elf().build_id() == running;
  target.debug = std::move(debug);
  return target;
}

Result<ProbeTarget> open_module(const CliOptions &options, const dwarf::OpenOptions &open) {
  ProbeTarget target;
  std::string release = kernel_release();
  const std::string &given = options.module;
  std::unique_ptr<dwarf::DebugInfo> debug;
  if (given.find('/') != std::string::npos || ends_with(given, ".ko")) {
    std::string base = basename_of(given);
    target.module = canonical_module_name(base.substr(0, base.find('.')));
    auto d = dwarf::DebugInfo::open(given, open);
    if (!d) return std::move(d).error();
    debug = std::move(*d);
  } else {
    target.module = canonical_module_name(given);
    std::string dep = module_path_in_dep(read_file_or_empty("/lib/modules/" + release + "/modules.dep"), given);
    std::string tried;
    std::string build_id = loaded_module_build_id(target.module);
    auto d = open_first(module_debug_candidates(release, dep, build_id), tried, build_id, open);
    if (!d) return std::move(d).error();
    if (!*d)
      return Error("no debug information for module '" + given + "'" +
                       (dep.empty() ? " (it is not in /lib/modules/" + release + "/modules.dep)" : "") +
                       (tried.empty() ? std::string() : "; tried:" + tried),
                   "give the module's debug .ko with -m PATH (Debian: apt install linux-image-" + release + "-dbg)");
    debug = std::move(*d);
  }
  std::string loaded = loaded_module_build_id(target.module);
  std::string what = "module " + target.module;  // before `target` is moved
  return with_debug_info(std::move(target), std::move(debug), loaded, what, options);
}

// Says on stderr where the program's debug information comes from when it
// is not the plain case, before the answers it shapes.
void note_debug_sources(dwarf::DebugInfo &debug, const CliOptions &options) {
  // No DWARF is a mode (as in perf probe), worth one line: what works, and where DWARF was looked for.
  if (!debug.has_dwarf() && !options.quiet)
    std::fprintf(stderr, "kprobe-probe: note: %s: probes by symbol (FUNC, FUNC+OFF, FUNC%%return, 0xADDR), raw fetch args\n",
                 debug.provenance().dwarf_note().c_str());
  // A stripped program's DWARF may come from a separate debug file: say which.
  if (options.verbose && debug.provenance().debug_path() != debug.elf().path())
    std::fprintf(stderr, "kprobe-probe: debug information from '%s'\n", debug.provenance().debug_path().c_str());
  if (std::string split = options.verbose ? debug.provenance().split_dwarf_source() : ""; !split.empty())
    std::fprintf(stderr, "kprobe-probe: %s\n", split.c_str());
  // What a supplementary file (dwz -m) holds is missing: said before answers it makes wrong.
  if (std::string unread = debug.provenance().unread_supplementary(); !unread.empty())
    std::fprintf(stderr, "kprobe-probe: warning: %s\n", unread.c_str());
}

// The -x program (or library) as a path from here: for -p, the one each
// process runs or maps (under its root when it is a container's; not
// resolved further, which would leave the process's root), else -x's own.
Result<std::string> program_path(const CliOptions &options) {
  if (options.pids.empty()) {
    char resolved[PATH_MAX];
    if (!realpath(options.exec.c_str(), resolved)) return Error("cannot find the program '" + options.exec + "'");
    return std::string(resolved);
  }
  std::string path, first;
  for (int pid : options.pids) {
    auto process = TargetProcess::open(pid);
    if (!process) return std::move(process).error();
    auto file = options.exec.empty() ? Result<std::string>(process->exe_path()) : mapped_file(*process, options.exec);
    if (!file) return std::move(file).error();
    if (path.empty()) {
      path = *file;
      first = process->describe();
    } else if (!same_file(path, *file)) {
      return Error("the processes run different files: " + first + " " + path + ", " + process->describe() + " " + *file,
                   "a probe is placed in one file: add it once per file, each with its -p");
    }
  }
  return path;
}

// The -x program (or library), or -p's.
Result<ProbeTarget> open_program(const CliOptions &options, const ParsedSpecs &specs, const dwarf::OpenOptions &open) {
  ProbeTarget target;
  auto path = program_path(options);
  if (!path) return std::move(path).error();
  target.path = *path;
  const char *resolved = target.path.c_str();
  // SDT markers are read from the ELF file itself (src/sdt): no DWARF.
  bool lookups = options.funcs || !options.vars.empty() || !options.lines.empty();
  if (!lookups && sdt::all_sdt_specs(specs)) return target;
  auto debug = dwarf::DebugInfo::open(resolved, open);
  if (!debug) return std::move(debug).error();
  note_debug_sources(**debug, options);
  target.debug = std::move(*debug);
  return target;
}

// No DWARF vmlinux was found (`tried` lists where): the running kernel's BTF
// when `allow_btf`, else an error naming the places tried.
Result<ProbeTarget> without_vmlinux(bool allow_btf, const std::string &tried) {
  const char *btf_path = "/sys/kernel/btf/vmlinux";
  if (allow_btf && access(btf_path, R_OK) == 0) {
    auto btf = btf::Btf::load(btf_path);
    if (!btf) return std::move(btf).error();
    ProbeTarget target;
    target.btf = std::make_unique<btf::Btf>(std::move(*btf));
    return target;
  }
  return Error("no DWARF vmlinux for the running kernel; tried:" + tried,
               "give one with -k PATH (Debian: apt install linux-image-$(uname -r)-dbg), or probe a program with -x");
}

// The kernel: the -k vmlinux, else the running kernel's where distributions
// put it (or from debuginfod).
Result<ProbeTarget> open_kernel(const CliOptions &options, const dwarf::OpenOptions &open, bool allow_btf) {
  std::string running = running_kernel_build_id();
  std::unique_ptr<dwarf::DebugInfo> debug;
  if (!options.vmlinux.empty()) {
    auto d = dwarf::DebugInfo::open(options.vmlinux, open);
    if (!d) return std::move(d).error();
    debug = std::move(*d);
  } else {
    std::string tried;
    auto d = open_first(vmlinux_candidates(kernel_release(), running), tried, running, open);
    if (!d) return std::move(d).error();
    if (!*d) return without_vmlinux(allow_btf, tried);
    debug = std::move(*d);
  }
  return with_debug_info(ProbeTarget{}, std::move(debug), running, "kernel", options);
}

}  // namespace

dwarf::OpenOptions debug_open_options(const CliOptions &options) {
  dwarf::OpenOptions open{.use_cache = !options.no_cache, .cache_directory = {}, .demangle = options.demangle};
  open.debuginfod_fetch = false;  // what --add fetched is in the cache; nothing here waits for a server
  return open;
}

Result<ProbeTarget> open_probe_target(const CliOptions &options, const ParsedSpecs &specs, bool allow_btf) {
  const dwarf::OpenOptions open = target_open_options(options, specs);
  if (!options.exec.empty() || !options.pids.empty()) return open_program(options, specs, open);
  if (!options.module.empty()) return open_module(options, open);
  return open_kernel(options, open, allow_btf);
}

}  // namespace kpp
