// The commands main() dispatches to. Each prints its own output and
// returns an error (printed by main) or Ok.
#pragma once

#include "src/cli/cli_options.h"
#include "src/util/result.h"

namespace kpp {

Status run_probe_command(const CliOptions &options);   // --add, -D, -l, -d
Status run_lookup_command(const CliOptions &options);  // -F, -V, -L
Status run_trace_command(const CliOptions &options);   // trace
Status run_record_command(const CliOptions &options);  // record
Status run_report_command(const CliOptions &options);  // report
Status run_demo_command(const CliOptions &options);    // demo
Status run_live_command(const CliOptions &options);    // live
Status run_hist_command(const CliOptions &options);    // hist

}  // namespace kpp
