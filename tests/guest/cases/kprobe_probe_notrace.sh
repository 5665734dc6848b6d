#!/bin/sh
# Notrace functions (issue 4): Debian's kernel is built without
# CONFIG_KPROBE_EVENTS_ON_NOTRACE, so it refuses kprobe events in any function that
# has no ftrace location (all of kernel/trace/ is built without -pg), with a bare
# "Failed to register probe event" in error_log.
#  1. The kernel itself refuses probes_seq_show (kernel/trace/trace_kprobe.c), which
#     available_filter_functions does not list: the definition -D prints, written
#     straight to kprobe_events, fails, and dmesg says "Could not probe notrace function".
#  2. --add of that spec is refused by kprobe-probe before anything is written, naming
#     the function and the reason; kprobe_events stays empty.
#  3. A traceable function (vfs_read, listed) is still added.
#  4. Without the kernel's configuration (/boot/config-RELEASE moved away) nothing is
#     refused up front; the kernel's refusal then comes with the likely reason.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux

kpp_remove_all_kprobes_on_exit

CONFIG=/boot/config-$(uname -r)
[ -r "$CONFIG" ] || kpp_fail "no $CONFIG in the guest (run-guest.sh copies the package's config there)"
grep -x '# CONFIG_KPROBE_EVENTS_ON_NOTRACE is not set' "$CONFIG" ||
  kpp_skip "this kernel is built with CONFIG_KPROBE_EVENTS_ON_NOTRACE: it refuses no notrace function"
grep -qx 'probes_seq_show' "$T/available_filter_functions" &&
  kpp_fail "available_filter_functions lists probes_seq_show: not a notrace function in this kernel"
grep -qx 'vfs_read' "$T/available_filter_functions" || kpp_fail "available_filter_functions does not list vfs_read"
SPEC='probes_seq_show@kernel/trace/trace_kprobe.c'

# 1. What the kernel does with the definition.
kpp_run def -k "$KPP_VMLINUX" -D "$SPEC"
[ $rc -eq 0 ] || kpp_fail "-D '$SPEC' exited $rc"
line=$(sed -n 's|^p:probe/probes_seq_show |p:probe/rawnotrace |p' /tmp/def.out)
[ -n "$line" ] || kpp_fail "-D printed no 'p:probe/probes_seq_show ...' line"
dmesg -c >/dev/null
if echo "$line" >>"$T/kprobe_events" 2>/dev/null; then
  kpp_fail "the kernel accepted '$line' in notrace probes_seq_show"
fi
echo "error_log: $(cat "$T/error_log")"
dmesg >/tmp/dmesg
kpp_show dmesg /tmp/dmesg
grep -q 'Could not probe notrace function' /tmp/dmesg ||
  kpp_fail "dmesg does not say 'Could not probe notrace function' after '$line'"
kpp_ok "the kernel refuses '$line': Could not probe notrace function"

# 2. Refused before the kernel sees it.
dmesg -c >/dev/null
kpp_run add -k "$KPP_VMLINUX" --add "$SPEC"
[ $rc -eq 1 ] || kpp_fail "--add '$SPEC' exited $rc, not 1"
grep -q 'probes_seq_show is a notrace function' /tmp/add.err ||
  kpp_fail "the refusal does not say that probes_seq_show is a notrace function"
grep -q 'CONFIG_KPROBE_EVENTS_ON_NOTRACE' /tmp/add.err || kpp_fail "the refusal does not name CONFIG_KPROBE_EVENTS_ON_NOTRACE"
grep -q 'probe its caller' /tmp/add.err || kpp_fail "the refusal does not suggest probing the caller"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "a refused add left kprobe_events: $(cat "$T/kprobe_events")"
! dmesg | grep -q 'Could not probe notrace function' || kpp_fail "the kernel was asked anyway (dmesg)"
kpp_ok "--add '$SPEC' refused up front with the reason; kprobe_events empty"

# 3. A traceable function still goes in.
kpp_run good -k "$KPP_VMLINUX" --add 'vfs_read count'
[ $rc -eq 0 ] || kpp_fail "--add 'vfs_read count' exited $rc"
grep -q '^p:probe/vfs_read vfs_read' "$T/kprobe_events" || kpp_fail "kprobe_events has no probe:vfs_read"
kpp_run del -d 'probe:vfs_read'
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "-d left kprobe_events: $(cat "$T/kprobe_events")"
kpp_ok "vfs_read (traceable) is added"

# 4. No configuration: the kernel refuses, and the error says why it likely did.
mv "$CONFIG" /tmp/config
kpp_run noconf -k "$KPP_VMLINUX" --add "$SPEC"
mv /tmp/config "$CONFIG"
[ $rc -eq 1 ] || kpp_fail "--add '$SPEC' without a config exited $rc, not 1"
grep -q 'Failed to register probe event' /tmp/noconf.err || kpp_fail "the error does not carry the kernel's reason"
grep -q 'likely because probes_seq_show is a notrace function' /tmp/noconf.err ||
  kpp_fail "the kernel's refusal does not come with the notrace reason"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "a refused add left kprobe_events: $(cat "$T/kprobe_events")"
kpp_ok "without the config, the kernel's bare refusal comes with the notrace reason"
