// Which binary's DWARF a probe command reads: the -x program, or the
// kernel's vmlinux (-k, else where distributions put it).
#pragma once

#include <memory>
#include <string>

#include "dwarf/debug_info.h"
#include "src/cli/cli_options.h"
#include "src/util/result.h"

namespace kpp {

struct ProbeTarget {
  std::string path;        // absolute path of the -x program; empty for the kernel
  std::unique_ptr<dwarf::DebugInfo> debug;
};

// Opens the target's debug info. Errors: a program that does not exist or
// has no DWARF; no vmlinux found (every path tried is listed).
Result<ProbeTarget> open_probe_target(const CliOptions &options);

}  // namespace kpp
