// The commands main() dispatches to. Each prints its own output and
// returns an error (printed by main) or Ok; the commands that run a traced
// command return the exit status to leave with (the command's own).
#pragma once

#include "src/cli/cli_options.h"
#include "util/result.h"

namespace kpp {

Status run_probe_command(const CliOptions &options);   // --add, -D, -l, -d
Status run_lookup_command(const CliOptions &options);  // -F, -V, -L
Result<int> run_trace_command(const CliOptions &options);   // trace
Result<int> run_record_command(const CliOptions &options);  // record
Status run_report_command(const CliOptions &options);  // report
Status run_demo_command(const CliOptions &options);    // demo
Result<int> run_live_command(const CliOptions &options);    // live
Result<int> run_export_command(const CliOptions &options);  // export
Result<int> run_hist_command(const CliOptions &options);    // hist

}  // namespace kpp
