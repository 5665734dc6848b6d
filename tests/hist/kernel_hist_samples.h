// Histograms as a kernel printed them (a hist file's text), shared by the
// tests that read them back: the table parser (hist_table_test) and the live
// view's Kernel pane source (kernel_histograms_test).
#pragma once

namespace kpp::hist_samples {

// Printed by Debian's 6.1 cloud kernel in the guest for
// hist:keys=common_pid.execname:vals=hitcount,count: a dd reading 3 x 7 bytes
// and two cats.
inline constexpr const char *kExecnameHist = R"(# event histogram
#
# trigger info: hist:keys=common_pid.execname:vals=hitcount,count:sort=hitcount.descending:size=2048 [active]
#

{ common_pid: dd              [       100] } hitcount:          3  count:         21
{ common_pid: cat             [        99] } hitcount:          2  count:     131072
{ common_pid: cat             [       101] } hitcount:          1  count:      65536

Totals:
    Hits: 6
    Entries: 3
    Dropped: 0
)";

}  // namespace kpp::hist_samples
