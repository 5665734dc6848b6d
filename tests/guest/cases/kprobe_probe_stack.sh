#!/bin/sh
# --stack with kernel probes (issue 15): vfs_read's kernel stack when dd reads 7
# bytes at a time, from the `stacktrace` trigger in our own instance, joined to
# each event and named from kallsyms and the DWARF vmlinux:
#  - trace --json: each of dd's 3 reads has a stack that starts at vfs_read
#    (fs/read_write.c; the kprobe handler's frames left out), then its caller ksys_read;
#  - trace (text): indented frames under the event;
#  - a module's frame (loop.ko's lo_ioctl, on losetup -d's LOOP_CLR_FD) with
#    drivers/block/loop.c and its line from the debug .ko found by name, the
#    line checked on the host against addr2line on that .ko (.host.sh);
#  - record: the file keeps the kernel's own kernel_stack events, which
#    trace-cmd report on the host prints under the event (.host.sh);
# and nothing is left: no trigger on the event, no instance.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux
kpp_remove_all_kprobes_on_exit

kpp_run add -k "$KPP_VMLINUX" --add 'vfs_read count'
[ $rc -eq 0 ] || kpp_fail "kprobe-probe --add exited $rc"
# Where distributions put the running kernel's DWARF vmlinux: the symbolizer finds it there.
mkdir -p /usr/lib/debug/boot
ln -sf "$KPP_VMLINUX" "/usr/lib/debug/boot/vmlinux-$(uname -r)"

# 1. JSON.
kpp_run json trace -e probe:vfs_read --stack --json --filter 'count == 7' -- dd if=/proc/version of=/dev/null bs=7 count=3
[ $rc -eq 0 ] || kpp_fail "trace --stack exited $rc"
n=$(grep -c '"comm":"dd"' /tmp/json.out)
[ "$n" -eq 3 ] || kpp_fail "trace --stack: $n events of dd, not 3"
with=$(grep '"comm":"dd"' /tmp/json.out | grep -c '"stack":\[{"ip":"0xf[0-9a-f]*","sym":"vfs_read","off":[0-9]*,"file":"[^"]*fs/read_write.c","line":[0-9]*,"inlined":false,"user":false},{[^}]*"sym":"ksys_read"')
[ "$with" -eq 3 ] || kpp_fail "trace --stack: $with of dd's 3 events have a stack that starts at vfs_read (fs/read_write.c), called from ksys_read"
kpp_ok "trace --stack --json: each of dd's 3 reads starts at vfs_read (fs/read_write.c), called from ksys_read"

# 2. Text.
kpp_run text trace -e probe:vfs_read --stack --filter 'count == 7' -- dd if=/proc/version of=/dev/null bs=7 count=1
[ $rc -eq 0 ] || kpp_fail "trace --stack (text) exited $rc"
grep -Eq '^    ffff[0-9a-f]{12} ksys_read\+0x[0-9a-f]+ .*fs/read_write.c:[0-9]+$' /tmp/text.out ||
  kpp_fail "trace --stack (text): no indented 'ksys_read+0x.. fs/read_write.c:N' frame"
kpp_ok "trace --stack (text): indented frames under the event"

# 3. record: the kernel's own stack events in the file, for trace-cmd on the host.
kpp_run record record -e probe:vfs_read --stack --filter 'count == 7' -o /tmp/s.dat -- dd if=/proc/version of=/dev/null bs=7 count=2
[ $rc -eq 0 ] || kpp_fail "record --stack exited $rc"
kpp_save /tmp/s.dat

# 4. A module's frames: loop.ko loaded, its debug .ko where Debian puts it (found as
# -m finds it, checked against the loaded module's build-id).
kpp_load_loop_with_debug
kpp_run modadd -m loop --add 'lo_ioctl cmd'
[ $rc -eq 0 ] || kpp_fail "-m loop --add 'lo_ioctl cmd' exited $rc"
dd if=/dev/zero of=/tmp/disk bs=1024 count=64 2>/dev/null
losetup /dev/loop0 /tmp/disk || kpp_fail "losetup /dev/loop0 failed"
# LOOP_CLR_FD is 0x4C01 = 19457 (include/uapi/linux/loop.h).
kpp_run modstack trace -e probe:lo_ioctl --stack --json --filter 'cmd == 19457' -- losetup -d /dev/loop0
[ $rc -eq 0 ] || kpp_fail "trace --stack of losetup -d exited $rc"
kpp_run moddel -d probe:lo_ioctl
grep '"comm":"losetup"' /tmp/modstack.out |
  grep -Eq '"stack":\[\{"ip":"0xf[0-9a-f]*","sym":"lo_ioctl","off":[0-9]+,"file":"[^"]*drivers/block/loop.c","line":[1-9][0-9]*,"inlined":false,"user":false,"object":"\[loop\]"\}' ||
  kpp_fail "trace --stack: losetup's lo_ioctl event has no stack starting at lo_ioctl (drivers/block/loop.c:N)"
echo "$KPP_DEBUG_MODULE_BUILD_ID" >/tmp/loop.build-id
kpp_save /tmp/modstack.out /tmp/loop.build-id
kpp_ok "trace --stack: a module's frame with its file:line from the debug .ko (lo_ioctl, drivers/block/loop.c)"

# 5. Nothing left behind.
ls -d "$T"/instances/kprobe-probe-* 2>/dev/null && kpp_fail "--stack left an instance"
grep -v '^#' "$T/events/probe/vfs_read/trigger" | grep -q stacktrace && kpp_fail "a stacktrace trigger is left on probe:vfs_read"
kpp_ok "no trigger or instance left"
