#!/bin/sh
# -D on the cached guest kernel's files, no kernel needed: definitions whose expected
# values come from the kernel's sources and the x86-64 calling convention, and the
# refusals that need only the vmlinux. Skips (77) when the cache is not there.
K=${1:?usage: offline_definitions.sh KPROBE_PROBE}
# The newest cached kernel (tests/guest/fetch-kernel.sh fills the cache; no download here).
DIR=$(ls -d "${KPP_GUEST_CACHE:-/var/tmp/kprobe-probe-guest}"/*/debug 2>/dev/null | sort | tail -n1)
DIR=${DIR%/debug}
V=$DIR/debug/vmlinux
M=$DIR/debug/modules/loop.ko
[ -r "$V" ] && [ -r "$M" ] || { echo "SKIP: no cached guest kernel (run tests/guest/fetch-kernel.sh)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect "DEFINITION" ARGS...: -D ARGS prints exactly DEFINITION
  want=$1
  shift
  got=$("$K" "$@" 2>/tmp/kpp-offline.err) || fail "kprobe-probe $* exited $?: $(cat /tmp/kpp-offline.err)"
  [ "$got" = "$want" ] || fail "kprobe-probe $*: got '$got', want '$want'"
  echo "ok: $* -> $got"
}
refuse() {  # refuse "WORDS" ARGS...: exit 1 and stderr contains WORDS
  words=$1
  shift
  "$K" "$@" >/dev/null 2>/tmp/kpp-offline.err && fail "kprobe-probe $* was accepted"
  grep -q "$words" /tmp/kpp-offline.err || fail "kprobe-probe $*: no '$words' in: $(cat /tmp/kpp-offline.err)"
  echo "ok: $* refused ($words)"
}

# ssize_t vfs_read(struct file *file, char __user *buf, size_t count, loff_t *pos):
# count is the third integer argument, %dx.
start=$(date +%s%N)
expect 'p:probe/vfs_read vfs_read+0 count=%dx:u64' -k "$V" -D 'vfs_read count'
end=$(date +%s%N)
echo "time: -D 'vfs_read count' on the 590 MB vmlinux took $(( (end - start) / 1000000 )) ms"
expect 'r:probe/vfs_read__return vfs_read+0 arg1=$retval:s64' -k "$V" -D 'vfs_read%return $retval'

# Peak memory of a function probe (issue 7: at most half of perf probe's ~226 MB on this
# vmlinux), on the run that builds the name index and on one that reads it from the cache.
if [ -x /usr/bin/time ]; then
  cache=$(mktemp -d)
  for run in building reading; do
    rss=$(XDG_CACHE_HOME=$cache /usr/bin/time -f %M "$K" -k "$V" -D 'vfs_read count' 2>&1 >/dev/null | tail -n1)
    [ "$rss" -le 113000 ] 2>/dev/null || { rm -rf "$cache"; fail "peak RSS of -D 'vfs_read count' ($run the index): $rss KB, more than 113 MB"; }
    echo "ok: peak RSS of -D 'vfs_read count' ($run the index): $((rss / 1024)) MB"
  done
  rm -rf "$cache"
fi
expect 'r16:probe/vfs_read__return vfs_read+0 arg1=$retval:s64' -k "$V" -D 'vfs_read%return $retval' --maxactive 16
# fsnotify_access is a static inline of include/linux/fsnotify.h with no out-of-line
# body: a return probe finds no body by symbol, and the inlined copies say why.
refuse 'only inlined, so it has no return' -k "$V" -D 'fsnotify_access%return'
# exc_nmi is noinstr (arch/x86/kernel/nmi.c); kprobes refuse .noinstr.text.
refuse '.noinstr.text' -k "$V" -D exc_nmi
# vfs_read starts with a 5-byte call to __fentry__: +3 is inside it.
refuse 'not where an instruction starts' -k "$V" -D 'vfs_read+3'
# With the disassembler (KPP_X86_DISASSEMBLER=1 from CMake): vfs_read's code after the
# 5-byte call is 'push %r15' (41 57) at +5, 'push %r14' at +7, 'push %r13' at +9
# (objdump -d). +9 starts an instruction that has no line-table row (without the
# disassembler it is refused); +6 is inside 'push %r15'.
if [ "${KPP_X86_DISASSEMBLER:-0}" = 1 ]; then
  expect 'p:probe/vfs_read vfs_read+9' -k "$V" -D 'vfs_read+9'
  refuse 'not where an instruction starts, by the line table and the disassembler' -k "$V" -D 'vfs_read+6'
fi
expect 'p:probe/vfs_read vfs_read+3' -k "$V" -f -D 'vfs_read+3'

# A static function whose name the vmlinux holds twice: proc_single_open is in both
# fs/proc/base.c and fs/proc/generic.c, so "proc_single_open+0" is ambiguous (the
# kernel refuses it, or probes whichever copy it finds first). Each copy is written
# as _text+OFF (decimal, as every offset here and in perf), OFF = its nm address
# minus _text's; addr2line says which address is which file's.
nm_text=$(nm "$V" | awk '$3 == "_text" { print $1 }')
copies=$(nm "$V" | awk '$3 == "proc_single_open" && ($2 == "t" || $2 == "T") { print $1 }')
[ "$(echo "$copies" | wc -l)" -eq 2 ] || fail "nm does not show two proc_single_open in $V: $copies"
for copy in $copies; do
  file=$(addr2line -e "$V" "0x$copy" | sed 's/:.*//')
  case $file in
    */fs/proc/base.c) src=fs/proc/base.c ;;
    */fs/proc/generic.c) src=generic.c ;;
    *) fail "addr2line puts proc_single_open at 0x$copy in $file" ;;
  esac
  # Both are in ffffffff8xxxxxxx: the difference of the low halves (sh arithmetic is signed 64-bit).
  off=$(( 0x${copy#ffffffff} - 0x${nm_text#ffffffff} ))
  expect "p:probe/proc_single_open _text+$off" -k "$V" -D "proc_single_open@$src"
done
# Without @file both copies, one multi-probe event.
[ "$("$K" -k "$V" -D proc_single_open | grep -c '^p:probe/proc_single_open _text+[0-9]')" -eq 2 ] ||
  fail "-D proc_single_open does not give both copies as _text+OFF"
echo "ok: -D proc_single_open gives both copies"

# loop.ko is relocatable: lo_ioctl in .text, loop_init in .init.text and loop_exit in
# .exit.text all have section offset 0 in the file; each must keep its own name.
expect 'p:probe/lo_ioctl loop:lo_ioctl+0 cmd=%dx:u32' -m "$M" -D 'lo_ioctl cmd'
expect 'p:probe/loop_init loop:loop_init+0' -m "$M" -D loop_init
expect 'p:probe/loop_exit loop:loop_exit+0' -m "$M" -D loop_exit

# --add with a vmlinux of another kernel than the running one: refused before any write.
running=$(od -An -v -tx1 /sys/kernel/notes 2>/dev/null | tr -d ' \n')
if [ -n "$running" ]; then
  refuse 'does not match the running kernel' -k "$V" -n --add vfs_read
  grep -q 'build-id is [0-9a-f]\{40\}, the running kernel.s is [0-9a-f]\{40\}' /tmp/kpp-offline.err ||
    fail "the build-id refusal does not name both ids: $(cat /tmp/kpp-offline.err)"
fi
echo "PASS"
