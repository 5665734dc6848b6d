#!/usr/bin/env bash
# Host side of kprobe_probe_stack: the guest's trace.dat from record --stack, read by
# trace-cmd. The kernel's kernel_stack events follow dd's vfs_read events, and
# trace-cmd names their frames from the kallsyms the file carries: ksys_read is there.
# Then the module frame of losetup's lo_ioctl event: its line is the one addr2line
# gives at the same offset of lo_ioctl in the same loop.ko (the guest cache's, by build-id).
# usage: kprobe_probe_stack.host.sh DIR   (DIR holds s.dat, modstack.out, loop.build-id)
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

command -v addr2line >/dev/null && command -v readelf >/dev/null && command -v nm >/dev/null ||
  { echo "SKIP: binutils (addr2line, readelf, nm) is not installed on the host"; exit 77; }
id=$(cat "$1/loop.build-id" 2>/dev/null)
[ -n "$id" ] || { echo "FAIL: the guest sent no loop.build-id"; exit 1; }
frame=$(grep '"comm":"losetup"' "$1/modstack.out" | grep -o '"stack":\[{[^}]*}' | head -n1)
off=$(echo "$frame" | sed -n 's/.*"off":\([0-9]*\).*/\1/p')
line=$(echo "$frame" | sed -n 's/.*"line":\([0-9]*\).*/\1/p')
[ -n "$off" ] && [ -n "$line" ] || { echo "FAIL: no lo_ioctl frame with off and line in modstack.out"; exit 1; }
ko=
while IFS= read -r f; do
  [ "$(readelf -n "$f" | sed -n 's/^ *Build ID: *//p' | head -n1)" = "$id" ] && ko=$f
done < <(find "${KPP_GUEST_CACHE:-/var/tmp/kprobe-probe-guest}" -path '*/debug/modules/loop.ko' 2>/dev/null)
[ -n "$ko" ] || { echo "FAIL: no loop.ko with build-id $id in the guest cache"; exit 1; }
value=$(nm "$ko" | awk '$3 == "lo_ioctl" { print $1; exit }')
[ -n "$value" ] || { echo "FAIL: $ko has no lo_ioctl symbol"; exit 1; }
# The first frame of a stack is where the code was (not a return address): that byte's line.
at=$(printf '0x%x' $((0x$value + off)))
expected=$(addr2line -e "$ko" -j .text "$at" | sed 's/.*://; s/ .*//')
echo "lo_ioctl+$off: ours line $line, addr2line -e $ko -j .text $at: $expected"
[ "$line" = "$expected" ] || { echo "FAIL: the module frame's line $line is not addr2line's $expected"; exit 1; }
echo "ok: lo_ioctl+$off at drivers/block/loop.c:$line, as addr2line says on the same loop.ko"
