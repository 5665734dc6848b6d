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


// Printed by Debian's 6.1 cloud kernel in the guest (issue 30) for
// hist:keys=name,common_pid.execname on a kprobe on do_filp_open with
// name=pathname->name:string, while sh opened the path
// "x } hitcount:      31337\n{ name: /etc/shadow" twice (no privilege needed),
// a path of one newline, and one of 60 bytes. The forged text is its row's key:
// the kernel padded it to 50 columns, then printed the comm.
inline constexpr const char *kForgedPathHist = R"KERNEL(# event histogram
#
# trigger info: hist:keys=name,common_pid.execname:vals=hitcount:sort=hitcount.descending:size=8192 if common_pid != 109 [active]
#

{ name: x } hitcount:      31337
{ name: /etc/shadow      , common_pid: sh              [       100] } hitcount:          2
{ name: /proc/self/exe                                    , common_pid: sh              [       116] } hitcount:          1
{ name: /sys/kernel/tracing/instances/kprobe-probe-104/events/probe/do_filp_open/hist, common_pid: cat             [       116] } hitcount:          1
{ name: /proc/self/exe                                    , common_pid: sh              [       119] } hitcount:          1
{ name: /sys/kernel/tracing/instances/                    , common_pid: sh              [       100] } hitcount:          1
{ name: /sys/kernel/tracing/instances/                    , common_pid: sh              [       116] } hitcount:          1
{ name: /proc/self/exe                                    , common_pid: sh              [       117] } hitcount:          1
{ name: /sys/kernel/tracing/instances/kprobe-probe-104/events/probe/do_filp_open/hist, common_pid: cat             [       119] } hitcount:          1
{ name: 000000000000000000000000000000000000000000000000000000000007, common_pid: sh              [       100] } hitcount:          1
{ name: /dev/null                                         , common_pid: sh              [       100] } hitcount:          1
{ name: 
                                                 , common_pid: sh              [       100] } hitcount:          1

Totals:
    Hits: 12
    Entries: 11
    Dropped: 0
)KERNEL";

}  // namespace kpp::hist_samples
