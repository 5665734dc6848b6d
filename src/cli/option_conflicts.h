// The switches that cannot be given together, refused before anything runs
// and naming both: perf probe's exclusive commands (-a, -d, -L, -V, -l, -F;
// perf's tests/shell/base_probe/test_invalid_options.sh lists the pairs),
// -D as -a, and where -p (a running process) does not apply.
#pragma once

#include "src/cli/cli_options.h"
#include "src/util/result.h"

namespace kpp {

// Error "switch 'X' cannot be used with switch 'Y'" for the first pair of
// `options` that conflicts, in the table's order; Ok when none does.
Status check_option_conflicts(const CliOptions &options);

}  // namespace kpp
