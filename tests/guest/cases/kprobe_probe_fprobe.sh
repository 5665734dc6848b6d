#!/bin/sh
# --fprobe (issue 15): on a kernel with fprobe events (6.12) vfs_read's entry and
# return are added as f: events, with count read as $arg3 from the DWARF
# vmlinux, and a dd reading 7 bytes is seen with count=7 and a return of 7;
# on a kernel without them (6.1) the add is refused with that reason and
# nothing is written. Both leave dynamic_events as they found it.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux
kpp_remove_all_kprobes_on_exit

kpp_run define -k "$KPP_VMLINUX" --fprobe -D 'vfs_read count' -D 'vfs_read%return $retval'
[ $rc -eq 0 ] || kpp_fail "-D --fprobe exited $rc"
grep -qx 'f:probe/vfs_read vfs_read count=$arg3:u64' /tmp/define.out || kpp_fail "-D --fprobe: no 'f:probe/vfs_read vfs_read count=\$arg3:u64'"
grep -Eqx 'f:probe/vfs_read__return vfs_read%return arg1=\$retval:s64' /tmp/define.out ||
  kpp_fail "-D --fprobe: no return fprobe with \$retval"
kpp_ok "-D --fprobe prints f: definitions with count as \$arg3"

if ! grep -q 'f\[:\[<group>/\]\[<event>\]\]' "$T/README"; then
  kpp_run add -k "$KPP_VMLINUX" --fprobe --add 'vfs_read count'
  [ $rc -eq 1 ] || kpp_fail "--fprobe --add on a kernel without fprobe events exited $rc, not 1"
  grep -q 'this kernel has no fprobe events' /tmp/add.err || kpp_fail "no 'this kernel has no fprobe events' in stderr"
  [ -z "$(cat "$T/dynamic_events")" ] || kpp_fail "dynamic_events not empty after a refused add: $(cat "$T/dynamic_events")"
  kpp_ok "$(uname -r) has no fprobe events: --fprobe refused, nothing written"
  exit 0
fi

kpp_run add -k "$KPP_VMLINUX" --fprobe --add 'vfs_read count' --add 'vfs_read%return $retval'
[ $rc -eq 0 ] || kpp_fail "--fprobe --add exited $rc"
kpp_show dynamic_events "$T/dynamic_events"
grep -qx 'f:probe/vfs_read vfs_read count=$arg3:u64' "$T/dynamic_events" || kpp_fail "no fprobe probe:vfs_read in dynamic_events"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "--fprobe wrote kprobes: $(cat "$T/kprobe_events")"
kpp_ok "added probe:vfs_read and probe:vfs_read__return as fprobes"

kpp_run trace trace --pid-only -e 'probe:vfs_read*' -- dd if=/proc/version of=/dev/null bs=7 count=1
[ $rc -eq 0 ] || kpp_fail "trace exited $rc"
grep -Eq ' dd-[0-9]+ probe:vfs_read count=7$' /tmp/trace.out || kpp_fail "trace: no probe:vfs_read from dd with count=7"
grep -Eq ' dd-[0-9]+ probe:vfs_read__return arg1=7$' /tmp/trace.out || kpp_fail "trace: no return from dd with arg1=7"
kpp_ok "the fprobes saw dd's count=7 and its return of 7"

kpp_run list -l
grep -q 'probe:vfs_read ' /tmp/list.out || kpp_fail "-l does not list the fprobe"
kpp_run del -d 'probe:vfs_read*'
[ $rc -eq 0 ] || kpp_fail "-d exited $rc"
[ -z "$(grep '^f:' "$T/dynamic_events")" ] || kpp_fail "fprobes left: $(cat "$T/dynamic_events")"
kpp_ok "-l lists the fprobes and -d removes them"
