#!/usr/bin/env bash
# Host side of kprobe_probe_stack: the guest's trace.dat from record --stack, read by
# trace-cmd. The kernel's kernel_stack events follow dd's vfs_read events, and
# trace-cmd names their frames from the kallsyms the file carries: ksys_read is there.
# usage: kprobe_probe_stack.host.sh DIR   (DIR holds s.dat from the guest)
set -u
dat=$1/s.dat
[ -s "$dat" ] || { echo "FAIL: the guest sent no s.dat"; exit 1; }
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed on the host"; exit 77; }
report=$(trace-cmd report -i "$dat" 2>&1) || { echo "$report" | head -20; echo "FAIL: trace-cmd report refused the trace.dat"; exit 1; }
echo "$report" | head -40
# "dd-97 [001] 6.35: kernel_stack: <stack trace >" or "kernel_stack:  => ksys_read ...", then "=> ..." lines.
stacks=$(echo "$report" | grep -c 'kernel_stack:')
[ "$stacks" -ge 2 ] || { echo "FAIL: trace-cmd report shows $stacks kernel stacks, not dd's 2"; exit 1; }
echo "$report" | grep -Eq '=> ksys_read' || { echo "FAIL: no '=> ksys_read' frame in trace-cmd report"; exit 1; }
echo "ok: trace-cmd report shows the kernel_stack events, ksys_read among their frames"
