#!/bin/sh
# kprobe-probe record with kernel events: a kprobe on vfs_read with its count argument
# (found in the DWARF vmlinux), recorded into a trace.dat while dd reads 7 bytes, and the
# file saved for the host, where kprobe_probe_record.host.sh reads it with trace-cmd.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux

# On any exit: remove instances a killed record would leave, delete probe:vfs_read.
kpp_remove_all_kprobes_on_exit

kprobe-probe -k "$KPP_VMLINUX" --add 'vfs_read count' >/tmp/add.out 2>&1 ||
  { cat /tmp/add.out; kpp_fail "kprobe-probe --add 'vfs_read count' failed"; }
grep -q '^p:probe/vfs_read ' "$T/kprobe_events" || kpp_fail "no probe:vfs_read in kprobe_events: $(cat "$T/kprobe_events")"
kpp_ok "added probe:vfs_read"

kprobe-probe record -e 'probe:vfs_read' -o /tmp/k.dat -- dd if=/proc/version of=/dev/null bs=7 count=1 \
  >/tmp/record.out 2>&1
rc=$?
cat /tmp/record.out
[ $rc -eq 0 ] || kpp_fail "kprobe-probe record exited $rc"
[ -s /tmp/k.dat ] || kpp_fail "record left no /tmp/k.dat"
[ -z "$(ls "$T/instances")" ] || kpp_fail "record left an instance behind: $(ls "$T/instances")"
kpp_ok "recorded $(wc -c </tmp/k.dat) bytes into /tmp/k.dat"
kpp_save /tmp/k.dat
