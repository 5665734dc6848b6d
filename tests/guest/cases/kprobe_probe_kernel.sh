#!/bin/sh
# Kernel probes as a user meets them (issue 4), against the running guest kernel:
#  1. the vmlinux found where Debian puts it (no -k), its build-id checked;
#  2. a module probe (loop.ko: lo_ioctl's cmd) found by name in the debug tree, fired by
#     busybox losetup, whose ioctls have known numbers (linux/loop.h: LOOP_CLR_FD 0x4C01);
#  3. a blacklisted function refused before anything is written, also at an offset
#     inside it (matched by runtime address against the blacklist's range);
#  4. --list flags from debugfs kprobes/list and hits from kprobe_profile, --enable,
#     --disable, --maxactive;
#  5. without any DWARF vmlinux, 'vfs_read count' from BTF, seen as count=7 on a dd.
#  6. still without it, file->f_pos read by the kernel through BTF where it can (6.12: 14
#     after a dd skip=2 bs=7), refused with the reason where it cannot (6.1).
. /kpp/lib.sh
T=$KPP_TRACING
REL=$(uname -r)
kpp_require_kprobes_and_vmlinux

cleanup() {
  rc=$?
  kpp_remove_all_kprobes
  losetup -d /dev/loop0 2>/dev/null
  exit $rc
}
trap cleanup EXIT

expect_empty_events() {
  [ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "$1: kprobe_events is not empty: $(cat "$T/kprobe_events")"
}

# 1. The vmlinux where Debian's -dbg package puts it; no -k.
mkdir -p /usr/lib/debug/boot
ln -sf "$KPP_VMLINUX" "/usr/lib/debug/boot/vmlinux-$REL"
kpp_run nok -D 'vfs_read count'
[ $rc -eq 0 ] || kpp_fail "-D without -k exited $rc with /usr/lib/debug/boot/vmlinux-$REL present"
grep -qx 'p:probe/vfs_read vfs_read+0 count=%dx:u64' /tmp/nok.out || kpp_fail "-D without -k: wrong definition"
grep -q BTF /tmp/nok.err && kpp_fail "-D without -k used BTF although the DWARF vmlinux is there"
kpp_ok "vmlinux found at /usr/lib/debug/boot/vmlinux-$REL without -k"

# A vmlinux of another build (here: a module's debug file) is refused for --add, naming both ids.
kpp_run wrongid -k "$KPP_DEBUG_MODULE_KO" --add vfs_read
[ $rc -eq 1 ] || kpp_fail "--add with a foreign -k file exited $rc, not 1"
RUNNING_ID=$(kpp_notes_build_id /sys/kernel/notes)
grep -q "$RUNNING_ID" /tmp/wrongid.err && grep -q "$KPP_DEBUG_MODULE_BUILD_ID" /tmp/wrongid.err ||
  kpp_fail "the build-id refusal does not name both ids ($RUNNING_ID, $KPP_DEBUG_MODULE_BUILD_ID)"
expect_empty_events "after a refused build-id"
kpp_ok "a vmlinux with another build-id refused, naming both ids"

# 2. A module: loop.ko loaded, its debug .ko where Debian puts it, found by name.
kpp_load_loop_with_debug
kpp_run modadd -m loop --add 'lo_ioctl cmd'
[ $rc -eq 0 ] || kpp_fail "-m loop --add 'lo_ioctl cmd' exited $rc"
grep -Eq '^p:probe/lo_ioctl loop:lo_ioctl(\+0)? cmd=%dx:u32$' "$T/kprobe_events" ||
  kpp_fail "no 'p:probe/lo_ioctl loop:lo_ioctl+0 cmd=%dx:u32' in kprobe_events: $(cat "$T/kprobe_events")"
dd if=/dev/zero of=/tmp/disk bs=1024 count=64 2>/dev/null
losetup /dev/loop0 /tmp/disk || kpp_fail "losetup /dev/loop0 failed"
kpp_run modtrace trace --pid-only -e 'probe:lo_ioctl' -- losetup -d /dev/loop0
[ $rc -eq 0 ] || kpp_fail "trace of losetup -d exited $rc"
# LOOP_CLR_FD is 0x4C01 = 19457 (include/uapi/linux/loop.h).
grep -Eq ' losetup-[0-9]+ probe:lo_ioctl cmd=19457$' /tmp/modtrace.out ||
  kpp_fail "no probe:lo_ioctl event with cmd=19457 (LOOP_CLR_FD) from losetup -d"
kpp_run modlist -l
grep -Eq '^  probe:lo_ioctl +\(on lo_ioctl(@[^ ]+)? in loop with cmd\)( |$)' /tmp/modlist.out ||
  kpp_fail "-l: no '  probe:lo_ioctl (on lo_ioctl in loop with cmd)' line"
kpp_run moddel -d 'probe:lo_ioctl'
expect_empty_events "after -d probe:lo_ioctl"
kpp_ok "module probe loop:lo_ioctl saw cmd=19457 (LOOP_CLR_FD) from losetup -d"

# 3. The kprobe blacklist: notify_die is NOKPROBE_SYMBOL (kernel/notifier.c).
grep -q '	notify_die$' /sys/kernel/debug/kprobes/blacklist || kpp_skip "notify_die is not blacklisted in this kernel"
kpp_run black --add notify_die
[ $rc -eq 1 ] || kpp_fail "--add notify_die exited $rc, not 1"
grep -q 'blacklist' /tmp/black.err || kpp_fail "--add notify_die: the refusal does not say 'blacklist'"
expect_empty_events "after the blacklisted notify_die"
kpp_ok "blacklisted notify_die refused with its reason, nothing written"
# Inside it, by name+offset (the offset where line 3 starts, so only the blacklist
# can refuse it: +28 on 6.1, another on 6.12): the runtime address falls in the
# blacklist's range, which the refusal names.
off=$(kprobe-probe -q -D 'notify_die:3' 2>/dev/null | sed -n 's/^p:[^ ]* notify_die+\([0-9][0-9]*\).*/\1/p' | head -n1)
[ -n "$off" ] || kpp_fail "-D notify_die:3 gave no notify_die+OFF"
kpp_run black28 --add "notify_die+$off"
[ $rc -eq 1 ] || kpp_fail "--add notify_die+$off exited $rc, not 1"
grep -q "cannot probe notify_die+$off (0xffffffff[0-9a-f]*): the kernel.s kprobe blacklist lists notify_die (0x" /tmp/black28.err ||
  kpp_fail "--add notify_die+$off: the refusal does not name the address and notify_die's range"
expect_empty_events "after notify_die+$off"
kpp_ok "notify_die+$off refused: its address is inside notify_die's blacklist range"

# 4. --list flags and counts, --enable/--disable, --maxactive.
kpp_run add4 --add 'vfs_read count' --add 'vfs_read%return $retval' --maxactive 8
[ $rc -eq 0 ] || kpp_fail "--add with --maxactive 8 exited $rc"
grep -Eq '^r8:probe/vfs_read__return vfs_read(\+0)? arg1=\$retval:s64$' "$T/kprobe_events" ||
  kpp_fail "--maxactive 8: no 'r8:probe/vfs_read__return' in kprobe_events"
kpp_run list1 -l
grep -Eq '^  probe:vfs_read +\(on vfs_read(@[^ ]+)? with count\) \[DISABLED\]' /tmp/list1.out ||
  kpp_fail "-l: probe:vfs_read is not flagged [DISABLED] before --enable"
kpp_run enable --enable 'probe:vfs_read*'
[ $rc -eq 0 ] || kpp_fail "--enable exited $rc"
[ "$(cat "$T/events/probe/vfs_read/enable")" = 1 ] || kpp_fail "--enable left events/probe/vfs_read/enable at 0"
dd if=/proc/version of=/dev/null bs=7 count=1 2>/dev/null
kpp_run list2 -l
grep -E '^  probe:vfs_read ' /tmp/list2.out | grep -q 'DISABLED' && kpp_fail "-l: still [DISABLED] after --enable"
grep -Eq '^  probe:vfs_read +\(on .*\)( \[[A-Z]+\])* hits=[1-9][0-9]* misses=0$' /tmp/list2.out ||
  kpp_fail "-l: probe:vfs_read shows no hits after a dd while enabled"
kpp_run list3 -l --json
grep '"event":"vfs_read",' /tmp/list3.json /tmp/list3.out 2>/dev/null | grep -Eq '"hits":[1-9]' ||
  kpp_fail "-l --json: no hits for probe:vfs_read"
kpp_run disable --disable 'probe:vfs_read*'
[ "$(cat "$T/events/probe/vfs_read/enable")" = 0 ] || kpp_fail "--disable left events/probe/vfs_read/enable at 1"
kpp_run list4 -l --json
grep '"event":"vfs_read",' /tmp/list4.out | grep -q '"flags":\["DISABLED"' ||
  kpp_fail "-l --json: no \"flags\":[\"DISABLED\"...] after --disable"
kpp_run del4 -d 'probe:vfs_read*'
expect_empty_events "after -d probe:vfs_read*"
kpp_ok "--list flags ([DISABLED]) and hits, --enable/--disable, --maxactive 8 (r8:)"

# 5. No DWARF vmlinux anywhere: BTF gives vfs_read's count.
rm -f "/usr/lib/debug/boot/vmlinux-$REL"
[ -r /sys/kernel/btf/vmlinux ] || kpp_skip "no /sys/kernel/btf/vmlinux"
kpp_run btfdef -D 'vfs_read count' -D 'vfs_read%return $retval'
[ $rc -eq 0 ] || kpp_fail "-D from BTF exited $rc"
grep -q 'BTF' /tmp/btfdef.err || kpp_fail "-D from BTF does not say it came from BTF"
grep -qx 'p:probe/vfs_read vfs_read+0 count=%dx:u64' /tmp/btfdef.out || kpp_fail "BTF -D: wrong entry definition"
grep -qx 'r:probe/vfs_read__return vfs_read+0 arg1=$retval:s64' /tmp/btfdef.out ||
  kpp_fail "BTF -D: wrong return definition"
kpp_run btfadd -q --add 'vfs_read count' --add 'vfs_read%return $retval'
[ $rc -eq 0 ] || kpp_fail "--add from BTF exited $rc"
kpp_run btftrace trace --pid-only -e 'probe:vfs_read*' -- dd if=/proc/version of=/dev/null bs=7 count=1
grep -Eq ' dd-[0-9]+ probe:vfs_read count=7$' /tmp/btftrace.out || kpp_fail "BTF probe: no count=7 from dd"
grep -Eq ' dd-[0-9]+ probe:vfs_read__return arg1=7$' /tmp/btftrace.out || kpp_fail "BTF probe: no return 7 from dd"
kpp_run btfdel -d 'probe:vfs_read*'
expect_empty_events "after -d of the BTF probes"
kpp_ok "without a DWARF vmlinux, BTF: vfs_read count=7 and return 7 from dd"

# 6. Still no DWARF vmlinux: a member chain of a parameter. Where the kernel's probe
# events read BTF chains by name (its README documents them: 6.12), the kernel reads
# file->f_pos, which a dd with skip=2 of 7-byte blocks has set to 14 before its read;
# where they do not (6.1), the chain is refused with the reason, nothing written.
if grep -qF '<argname>[->field[->field|.field...]]' "$T/README"; then
  kpp_run btfchaindef -D 'vfs_read file->f_pos count'
  [ $rc -eq 0 ] || kpp_fail "-D of a BTF member chain exited $rc"
  grep -qx 'p:probe/vfs_read vfs_read+0 f_pos=file->f_pos count=%dx:u64' /tmp/btfchaindef.out ||
    kpp_fail "BTF chain -D: not 'p:probe/vfs_read vfs_read+0 f_pos=file->f_pos count=%dx:u64'"
  kpp_run btfchainadd -q --add 'vfs_read file->f_pos count'
  [ $rc -eq 0 ] || kpp_fail "--add of a BTF member chain exited $rc"
  kpp_run btfchaintrace trace --pid-only -e probe:vfs_read -- dd if=/proc/version of=/dev/null bs=7 skip=2 count=1
  grep -Eq ' dd-[0-9]+ probe:vfs_read f_pos=14 count=7$' /tmp/btfchaintrace.out ||
    kpp_fail "BTF chain: no 'f_pos=14 count=7' from dd"
  kpp_run btfchaindel -d probe:vfs_read
  expect_empty_events "after -d of the BTF chain probe"
  kpp_ok "without a DWARF vmlinux, the kernel reads file->f_pos by BTF: 14 after dd's skip=2 of 7 bytes"
else
  kpp_run btfchainno -D 'vfs_read file->f_pos'
  [ $rc -eq 1 ] || kpp_fail "-D of a BTF member chain on a kernel without BTF chains exited $rc, not 1"
  grep -q 'cannot read a member chain by BTF name' /tmp/btfchainno.err ||
    kpp_fail "the refusal of a BTF member chain does not give the reason"
  kpp_run btfchainno2 --add 'vfs_read file->f_pos'
  [ $rc -eq 1 ] || kpp_fail "--add of a BTF member chain on a kernel without BTF chains exited $rc, not 1"
  expect_empty_events "after a refused BTF chain"
  kpp_ok "this kernel's probe events read no BTF chains: 'vfs_read file->f_pos' refused with the reason"
fi
