// Which binary's DWARF a probe command reads: the -x program, the -m
// module's debug .ko, or the kernel's vmlinux (-k, else where distributions
// put it); without any DWARF vmlinux, the running kernel's BTF.
#pragma once

#include <memory>
#include <string>

#include "dwarf/debug_info.h"
#include "src/btf/btf.h"
#include "src/cli/cli_options.h"
#include "src/spec/probe_spec.h"
#include "util/result.h"

namespace kpp {

struct ProbeTarget {
  std::string path;        // absolute path of the -x program; empty for the kernel
  std::string module;      // -m: the module's name as the kernel knows it ("loop"); empty otherwise
  std::unique_ptr<dwarf::DebugInfo> debug;  // null when only BTF was found
  std::unique_ptr<btf::Btf> btf;            // the running kernel's BTF, when debug is null
  // The vmlinux or module is the running one's (their build-ids are equal):
  // only then does -D place its sites with /proc/kallsyms as --add does.
  bool runs_here = false;
};

// Opens the target's debug info. Errors: a program that does not exist or
// has no DWARF; no vmlinux or module debug info found (every path tried is
// listed); a vmlinux or module whose build-id is not the running one's
// (unless -f, and not for -D, which works offline on any kernel's files).
// `specs`: the command's, parsed once (whether they read locations, or are
// all SDT markers, which need no DWARF). `allow_btf`: fall back to
// /sys/kernel/btf/vmlinux when no DWARF vmlinux exists.
Result<ProbeTarget> open_probe_target(const CliOptions &options, const ParsedSpecs &specs, bool allow_btf = false);

// How the command line says the files a listing or a session opens are
// read (the probed programs, and the stacks' files): --no-cache and
// --no-demangle. (The probe target itself follows --demangle-kernel when it
// is the kernel or a module.) They never wait for a debuginfod server: a
// debug file from one is taken from its cache only (--add put it there);
// the stacks' files fetch theirs in the background (src/stack).
dwarf::OpenOptions debug_open_options(const CliOptions &options);

}  // namespace kpp
