#!/bin/sh
# hist (issue 15): counts per key made by the kernel's hist triggers in our own
# instance. vfs_read's entry and return probes are added, then
#  - hist --by comm --sum count while a dd reads 5 x 7 bytes: dd's row is exactly
#    5 hits and 35 bytes (the truth is dd's own arguments);
#  - hist -- dd ...: hist starts dd itself, counts while it runs, ends when it
#    exits and exits with its status (7 through sh -c '...; exit 7');
#  - hist --latency vfs_read: the log2 histogram of vfs_read's time has dd's reads;
#  - a pattern naming two events is refused;
# and nothing is left: no trigger, no synthetic event, no instance.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux
[ -e "$T/events/kprobes" ] || [ -d "$T/events" ] || kpp_fail "no events directory"
kpp_remove_all_kprobes_on_exit

kpp_run add -k "$KPP_VMLINUX" --add 'vfs_read count' --add 'vfs_read%return $retval'
[ $rc -eq 0 ] || kpp_fail "kprobe-probe --add exited $rc"
[ -e "$T/events/probe/vfs_read/hist" ] || kpp_skip "this kernel has no hist triggers"

# 1. --by comm --sum count, JSON.
kprobe-probe hist -e probe:vfs_read --by comm --sum count --duration 15 --json >/tmp/h.out 2>/tmp/h.err &
hpid=$!
kpp_wait_hist_trigger probe/vfs_read || { kpp_show "hist stderr" /tmp/h.err; kpp_fail "hist installed no trigger"; }
dd if=/proc/version of=/dev/null bs=7 count=5 2>/dev/null || kpp_fail "dd failed"
wait $hpid; rc=$?
kpp_show "hist stdout" /tmp/h.out
kpp_show "hist stderr" /tmp/h.err
[ $rc -eq 0 ] || kpp_fail "hist exited $rc"
grep -qx '{"key":{"comm":"dd"},"hits":5,"sum":{"count":35}}' /tmp/h.out ||
  kpp_fail "hist --by comm: no row of dd with 5 hits and 35 bytes"
kpp_ok "hist --by comm --sum count: dd made 5 reads of 35 bytes in all"

# 1b. hist -- COMMAND: dd started by hist through its session; no --duration,
# no waiting for the trigger: the command is held until the trigger is set.
kprobe-probe hist -e probe:vfs_read --by comm --sum count --json -- dd if=/proc/version of=/dev/null bs=7 count=4 \
  >/tmp/hc.out 2>/tmp/hc.err
rc=$?
kpp_show "hist -- dd stdout" /tmp/hc.out
kpp_show "hist -- dd stderr" /tmp/hc.err
[ $rc -eq 0 ] || kpp_fail "hist -- dd exited $rc"
grep -qx '{"key":{"comm":"dd"},"hits":4,"sum":{"count":28}}' /tmp/hc.out ||
  kpp_fail "hist -- dd: no row of dd with 4 hits and 28 bytes"
grep -q '"comm":"kprobe-probe"' /tmp/hc.out && kpp_fail "hist -- dd counted its own reads"
kpp_ok "hist -- dd: dd's 4 reads of 28 bytes, counted while hist ran it"

kprobe-probe hist -e probe:vfs_read --by comm -- sh -c 'dd if=/proc/version of=/dev/null bs=7 count=3 2>/dev/null; exit 7' \
  >/tmp/hc2.out 2>/tmp/hc2.err
rc=$?
kpp_show "hist -- sh stdout" /tmp/hc2.out
kpp_show "hist -- sh stderr" /tmp/hc2.err
[ $rc -eq 7 ] || kpp_fail "hist -- sh -c '...; exit 7' exited $rc, not the command's 7"
grep -Eq '^dd +3$' /tmp/hc2.out || kpp_fail "hist -- sh: no row 'dd 3'"
grep -q 'sh exited 7' /tmp/hc2.err || kpp_fail "hist -- sh: stderr does not say 'sh exited 7'"
kpp_ok "hist -- COMMAND exits with the command's status (7), dd's 3 reads counted"

# 2. The text table, by count.log2.
kprobe-probe hist -e probe:vfs_read --by comm --by count.log2 --filter 'count < 8' --duration 15 >/tmp/h2.out 2>/tmp/h2.err &
hpid=$!
kpp_wait_hist_trigger probe/vfs_read || { kpp_show "hist stderr" /tmp/h2.err; kpp_fail "hist installed no trigger"; }
dd if=/proc/version of=/dev/null bs=7 count=3 2>/dev/null || kpp_fail "dd failed"
wait $hpid; rc=$?
kpp_show "hist (table) stdout" /tmp/h2.out
[ $rc -eq 0 ] || kpp_fail "hist (table) exited $rc"
head -n1 /tmp/h2.out | grep -Eq '^comm +count\.log2 +hits$' || kpp_fail "hist table: no header 'comm count.log2 hits'"
grep -Eq '^dd +\(4, 8\] +3$' /tmp/h2.out || kpp_fail "hist table: no row 'dd (4, 8] 3'"
kpp_ok "hist table: dd's three 7-byte reads in the (4, 8] bucket"

# 3. --latency vfs_read: entry and return paired in the kernel.
kprobe-probe hist --latency vfs_read --duration 15 --json >/tmp/h3.out 2>/tmp/h3.err &
hpid=$!
kpp_wait_hist_trigger synthetic/kpp_lat_* || { kpp_show "hist --latency stderr" /tmp/h3.err; kpp_fail "hist --latency installed no trigger"; }
dd if=/proc/version of=/dev/null bs=7 count=5 2>/dev/null || kpp_fail "dd failed"
wait $hpid; rc=$?
kpp_show "hist --latency stdout" /tmp/h3.out
kpp_show "hist --latency stderr" /tmp/h3.err
[ $rc -eq 0 ] || kpp_fail "hist --latency exited $rc"
total=$(sed -n 's/.*"hits":\([0-9]*\).*/\1/p' /tmp/h3.out | awk '{ s += $1 } END { print s + 0 }')
[ "$total" -ge 5 ] || kpp_fail "hist --latency counted $total vfs_read calls, fewer than dd's 5"
grep -q '"lat_us.log2":' /tmp/h3.out || kpp_fail "hist --latency: no lat_us.log2 keys"
kpp_ok "hist --latency vfs_read: $total calls timed in the kernel"

# 4. One event only.
kpp_run two hist -e 'probe:vfs_read*' --by comm --duration 1
[ $rc -eq 1 ] || kpp_fail "hist on two events exited $rc, not 1"
grep -q 'names 2 events' /tmp/two.err || kpp_fail "hist on two events: no 'names 2 events' in stderr"
kpp_ok "a pattern naming two events is refused"

# 5. Nothing left behind.
ls -d "$T"/instances/kprobe-probe-* 2>/dev/null && kpp_fail "hist left an instance"
[ -z "$(grep -v '^#' "$T/synthetic_events" 2>/dev/null)" ] || kpp_fail "synthetic_events not empty: $(cat "$T/synthetic_events")"
for e in vfs_read vfs_read__return; do
  grep -q '^hist' "$T/events/probe/$e/trigger" && kpp_fail "a hist trigger is left on probe:$e"
done
kpp_run del -d 'probe:*'
[ $rc -eq 0 ] || kpp_fail "-d exited $rc"
kpp_ok "no trigger, synthetic event or instance left; probes removed"
