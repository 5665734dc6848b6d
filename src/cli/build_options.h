// The resolver's options from the command line's.
#pragma once

#include "src/cli/cli_options.h"
#include "src/cli/probe_target.h"
#include "src/definition/probe_builder.h"

namespace kpp {

inline BuildOptions build_options_for(const CliOptions &options, const ProbeTarget &target) {
  BuildOptions b;
  b.target_path = target.path;
  b.module = target.module;  // the name the kernel knows, also for -m PATH
  b.max_probes = options.max_probes;
  b.no_inlines = options.no_inlines;
  b.source_dir = options.source;
  b.prefix_map = options.prefix_map;
  b.force = options.force;
  b.maxactive = options.maxactive;
  b.max_items = options.max_items;
  return b;
}

}  // namespace kpp
