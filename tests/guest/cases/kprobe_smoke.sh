#!/bin/sh
# Proves the guest harness end to end on a real kprobe: a probe and a return probe on
# vfs_read, enabled in a private tracing instance, see a dd that reads 7 bytes.
. /kpp/lib.sh
T=$KPP_TRACING
I=$T/instances/kpptest

[ -e "$T/kprobe_events" ] || kpp_fail "the guest kernel has no $T/kprobe_events"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "kprobe_events is not empty at start: $(cat "$T/kprobe_events")"

kpp_trace_write 'p:kpptest/vfs_read vfs_read count=%dx:u64' kprobe_events || kpp_fail "cannot add the kprobe"
kpp_trace_write 'r:kpptest/vfs_read_ret vfs_read ret=$retval:s64' kprobe_events || kpp_fail "cannot add the kretprobe"
mkdir "$I" || kpp_fail "cannot create the tracing instance $I"
[ -d "$I/events/kpptest/vfs_read" ] || kpp_fail "the instance does not show the new event"
echo 1 >"$I/events/kpptest/enable" || kpp_fail "cannot enable kpptest in the instance"

dd if=/proc/version of=/dev/null bs=7 count=1 2>/dev/null || kpp_fail "dd failed"

echo 0 >"$I/events/kpptest/enable"
cat "$I/trace" >/tmp/trace
echo "--- instance trace (dd lines):"
grep ' dd-' /tmp/trace

# Lines look like "  dd-71  [001] ..... 1.23: vfs_read: (vfs_read+0x0/0x1a0) count=7"
# (6.12 places a probe on a function's entry after its endbr64: vfs_read+0x4)
# and "  dd-71  [001] ..... 1.23: vfs_read_ret: (ksys_read+0x6b/0xf0 <- vfs_read) ret=7".
grep -Eq '^ *dd-[0-9]+ .* vfs_read: \(vfs_read\+0x[04]/0x[0-9a-f]+\) count=7$' /tmp/trace ||
  kpp_fail "no vfs_read event with count=7 from dd"
kpp_ok "kprobe vfs_read saw dd's count=7"
grep -Eq '^ *dd-[0-9]+ .* vfs_read_ret: \(.* <- vfs_read\) ret=7$' /tmp/trace ||
  kpp_fail "no vfs_read return event with ret=7 from dd"
kpp_ok "kretprobe vfs_read returned 7 to dd"
# The private instance is private: the top-level buffer stayed off.
! grep -q 'kpptest\|vfs_read' "$T/trace" || kpp_fail "events leaked into the top-level buffer"

rmdir "$I" || kpp_fail "cannot remove the instance"
kpp_trace_write '-:kpptest/vfs_read' kprobe_events || kpp_fail "cannot remove the kprobe"
kpp_trace_write '-:kpptest/vfs_read_ret' kprobe_events || kpp_fail "cannot remove the kretprobe"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "kprobe_events not empty after removal: $(cat "$T/kprobe_events")"
kpp_ok "probes removed, kprobe_events empty"
