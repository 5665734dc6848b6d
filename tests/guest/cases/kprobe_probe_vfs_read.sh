#!/bin/sh
# kprobe-probe itself against the real kernel: it adds a kprobe with an argument found
# in the DWARF vmlinux (vfs_read's count) and a return probe with $retval, traces a dd
# that reads 7 bytes (the independent truth: count=7 and a return value of 7), lists,
# deletes, and refuses a function that does not exist, leaving kprobe_events as it was.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux

# On any exit: remove what this case added (and a killed trace's instance), keep the status.
kpp_remove_all_kprobes_on_exit

# 1. Add: count is vfs_read's third parameter, in %dx at the entry (x86-64 ABI).
kpp_run add -k "$KPP_VMLINUX" --add 'vfs_read count' --add 'vfs_read%return $retval'
[ $rc -eq 0 ] || kpp_fail "kprobe-probe --add exited $rc"
cat "$T/kprobe_events" >/tmp/ke
kpp_show kprobe_events /tmp/ke
[ "$(wc -l </tmp/ke)" -eq 2 ] || kpp_fail "kprobe_events should hold exactly the two new probes"
grep -Eq '^p:probe/vfs_read vfs_read(\+0)? count=%dx:u64$' /tmp/ke ||
  kpp_fail "no kprobe 'p:probe/vfs_read vfs_read count=%dx:u64' in kprobe_events"
grep -Eq '^r[0-9]*:probe/vfs_read__return vfs_read(\+0)? arg1=\$retval:s64$' /tmp/ke ||
  kpp_fail "no kretprobe 'r:probe/vfs_read__return vfs_read arg1=\$retval:s64' in kprobe_events"
kpp_ok "added probe:vfs_read (count=%dx) and probe:vfs_read__return (\$retval)"

# 2. Trace a dd that reads 7 bytes, as text and as JSON.
# --pid-only: without it the tracer's own reads of trace_pipe_raw go through vfs_read
# and feed the buffer it is draining (see the report of this case's commit).
kpp_run trace trace --pid-only -e 'probe:vfs_read*' -- dd if=/proc/version of=/dev/null bs=7 count=1
[ $rc -eq 0 ] || kpp_fail "kprobe-probe trace exited $rc"
# Lines look like "     6.351949581 [001] dd-106 probe:vfs_read count=7".
grep -Eq '^ *[0-9]+\.[0-9]{9} \[[0-9]+\] dd-[0-9]+ probe:vfs_read count=7$' /tmp/trace.out ||
  kpp_fail "trace: no probe:vfs_read line from dd with count=7"
grep -Eq '^ *[0-9]+\.[0-9]{9} \[[0-9]+\] dd-[0-9]+ probe:vfs_read__return arg1=7$' /tmp/trace.out ||
  kpp_fail "trace: no probe:vfs_read__return line from dd with arg1=7"
kpp_ok "trace: dd's vfs_read had count=7 and returned 7"

kpp_run trace_json trace --pid-only --json -e 'probe:vfs_read*' -- dd if=/proc/version of=/dev/null bs=7 count=1
[ $rc -eq 0 ] || kpp_fail "kprobe-probe trace --json exited $rc"
# Each object also says which site fired ("ip", "site") before its fields.
grep -Eq '"comm":"dd","pid":[0-9]+,"event":"probe:vfs_read",("ip":"0x[0-9a-f]+",)?"site":"vfs_read","fields":\{"count":7\}\}$' /tmp/trace_json.out ||
  kpp_fail "trace --json: no probe:vfs_read object from dd with count 7"
grep -Eq '"comm":"dd","pid":[0-9]+,"event":"probe:vfs_read__return",("ip":"0x[0-9a-f]+",)?"site":"vfs_read%return","fields":\{"arg1":7\}\}$' /tmp/trace_json.out ||
  kpp_fail "trace --json: no probe:vfs_read__return object from dd with arg1 7"
kpp_ok "trace --json: the same count 7 and return value 7"
ls "$T/instances" | grep -q '^kprobe-probe-' && kpp_fail "trace left an instance: $(ls "$T/instances")"
kpp_ok "trace removed its tracefs instance"

# 3. List, in perf's line form and as JSON.
kprobe-probe -l >/tmp/list.out 2>&1 || kpp_fail "kprobe-probe -l failed: $(cat /tmp/list.out)"
kpp_show "-l" /tmp/list.out
grep -Eq '^  probe:vfs_read +\(on vfs_read(@[^ ]+)? with count\)( \[.*| hits=.*)?$' /tmp/list.out ||
  kpp_fail "-l: no '  probe:vfs_read (on vfs_read with count)' line"
grep -Eq '^  probe:vfs_read__return +\(on vfs_read(@[^ ]+)?%return with arg1\)( \[.*| hits=.*)?$' /tmp/list.out ||
  kpp_fail "-l: no '  probe:vfs_read__return (on vfs_read%return with arg1)' line"
kprobe-probe -l --json >/tmp/list.json 2>&1 || kpp_fail "kprobe-probe -l --json failed: $(cat /tmp/list.json)"
kpp_show "-l --json" /tmp/list.json
grep '"group":"probe","event":"vfs_read",' /tmp/list.json | grep -q '"type":"kprobe","return":false' ||
  kpp_fail "-l --json: probe:vfs_read is not a kprobe entry"
grep '"group":"probe","event":"vfs_read__return",' /tmp/list.json | grep -q '"type":"kprobe","return":true' ||
  kpp_fail "-l --json: probe:vfs_read__return is not a kprobe return entry"
kpp_ok "-l and -l --json list both probes"

# 4. Delete.
kprobe-probe -d 'probe:vfs_read*' >/tmp/del.out 2>&1
rc=$?
kpp_show "-d" /tmp/del.out
[ $rc -eq 0 ] || kpp_fail "kprobe-probe -d exited $rc"
grep -qx 'Removed event: probe:vfs_read' /tmp/del.out || kpp_fail "-d: no 'Removed event: probe:vfs_read'"
grep -qx 'Removed event: probe:vfs_read__return' /tmp/del.out ||
  kpp_fail "-d: no 'Removed event: probe:vfs_read__return'"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "kprobe_events not empty after -d: $(cat "$T/kprobe_events")"
ls "$T/instances" | grep -q '^kprobe-probe-' && kpp_fail "an instance remains: $(ls "$T/instances")"
kpp_ok "-d removed both probes; kprobe_events is empty, no instance remains"

# 5. A function the kernel does not have: exit 1, a reason, nothing added.
kprobe-probe -k "$KPP_VMLINUX" --add 'no_such_function_xyz' >/tmp/bad.out 2>/tmp/bad.err
rc=$?
kpp_show "bad add stderr" /tmp/bad.err
[ $rc -eq 1 ] || kpp_fail "--add no_such_function_xyz exited $rc, not 1"
grep -q 'no function' /tmp/bad.err || kpp_fail "--add no_such_function_xyz: no 'no function' in stderr"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "kprobe_events not empty after a refused add: $(cat "$T/kprobe_events")"
kpp_ok "no_such_function_xyz refused with exit 1, kprobe_events still empty"
