#!/bin/sh
# Kernel probes on a static function whose name the kernel holds more than once, and
# the kprobe blacklist matched by address (issue 4):
#  1. proc_single_open is in fs/proc/base.c (the open of /proc/PID files such as
#     limits) and in fs/proc/generic.c (of proc_create_single files such as
#     /proc/version). The kernel refuses 'proc_single_open+0' as ambiguous, so -D and
#     --add write '_text+OFF' for each copy, the same text both ways.
#  2. Each probe is on the copy asked for: a cat of /proc/version hits generic.c's
#     copy only, a cat of /proc/self/limits base.c's only (kprobe_profile counts the
#     hits); and the address debugfs kprobes/list shows is the runtime _text
#     (kallsyms) plus OFF, one of the two proc_single_open kallsyms lists.
#  3. --list names the function and keeps the anchor: 'proc_single_open@<_text+OFF>'.
#  4. Without a DWARF vmlinux (BTF), 'proc_single_open' is refused: nothing tells
#     the copies apart.
#  5. process_fetch_insn (also a name of several copies) is NOKPROBE in each file:
#     its _text+OFF anchor is refused by the blacklist's address range, naming it.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux

kpp_remove_all_kprobes_on_exit

hits() {  # hits EVENT: the hit count kprobe_profile gives probe:EVENT (it names the event alone)
  awk -v e="$1" '$1 == e || $1 == "probe:" e || $1 == "probe/" e { print $2 }' "$T/kprobe_profile"
}

grep ' proc_single_open$' /proc/kallsyms >/tmp/copies
kpp_show "kallsyms proc_single_open" /tmp/copies
[ "$(wc -l </tmp/copies)" -eq 2 ] || kpp_skip "this kernel does not have two proc_single_open"

# What the name alone gets from this kernel (shown, not asserted: kernels before the
# uniqueness check put it on the first copy kallsyms finds).
if echo 'p:probe/ambiguous proc_single_open' >>"$T/kprobe_events" 2>/dev/null; then
  echo "note: this kernel accepts the ambiguous 'proc_single_open' (it probes one copy)"
  echo '-:probe/ambiguous' >>"$T/kprobe_events"
else
  echo "note: this kernel refuses the ambiguous 'proc_single_open': $(cat "$T/error_log")"
fi

# 1. -D, then --add: the same _text+OFF definitions.
BSPEC="pbase=proc_single_open@fs/proc/base.c"
GSPEC="pgen=proc_single_open@fs/proc/generic.c"
kpp_run def -k "$KPP_VMLINUX" -D "$BSPEC" -D "$GSPEC"
[ $rc -eq 0 ] || kpp_fail "-D of the two copies exited $rc"
grep -Eq '^p:probe/pbase _text\+[0-9]+$' /tmp/def.out && grep -Eq '^p:probe/pgen _text\+[0-9]+$' /tmp/def.out ||
  kpp_fail "-D does not write each copy as _text+OFF"
kpp_run add -k "$KPP_VMLINUX" --add "$BSPEC" --add "$GSPEC"
[ $rc -eq 0 ] || kpp_fail "--add of the two copies exited $rc (error_log: $(cat "$T/error_log"))"
kpp_show kprobe_events "$T/kprobe_events"
for e in pbase pgen; do
  want=$(grep "^p:probe/$e " /tmp/def.out | sed 's/.*_text+//')
  grep -qx "p:probe/$e _text+$want" "$T/kprobe_events" ||
    kpp_fail "kprobe_events has no 'p:probe/$e _text+$want', which -D printed"
  eval "off_$e=$want"
done
kpp_ok "-D and --add both write _text+OFF for each proc_single_open ($off_pbase, $off_pgen)"

# 2. The right copies, by what runs them.
kpp_run en --enable 'probe:p*'
[ $rc -eq 0 ] || kpp_fail "--enable exited $rc"
b0=$(hits pbase); g0=$(hits pgen)
cat /proc/version >/dev/null
b1=$(hits pbase); g1=$(hits pgen)
cat /proc/self/limits >/dev/null
b2=$(hits pbase); g2=$(hits pgen)
echo "hits pbase: $b0 $b1 $b2; pgen: $g0 $g1 $g2"
[ -n "$b0" ] && [ -n "$g0" ] || kpp_fail "kprobe_profile has no line for pbase or pgen: $(cat "$T/kprobe_profile")"
[ $((b1 - b0)) -eq 0 ] && [ $((g1 - g0)) -ge 1 ] ||
  kpp_fail "cat /proc/version gave pbase $((b1 - b0)) hits and pgen $((g1 - g0)), not 0 and 1 or more"
[ $((b2 - b1)) -ge 1 ] && [ $((g2 - g1)) -eq 0 ] ||
  kpp_fail "cat /proc/self/limits gave pbase $((b2 - b1)) hits and pgen $((g2 - g1)), not 1 or more and 0"
kpp_ok "pgen fires on /proc/version only, pbase on /proc/self/limits only"

text=$(awk '$3 == "_text" { print $1 }' /proc/kallsyms)
kpp_show "kprobes/list" /sys/kernel/debug/kprobes/list
# The kernel's text is in ffffffff80000000-ffffffffc0000000 whatever KASLR picks: the
# sum fits the low 32 bits (busybox sh arithmetic is signed 64-bit).
case $text in ffffffff*) ;; *) kpp_fail "kallsyms _text is $text, not in the kernel text area" ;; esac
for e in pbase pgen; do
  eval "off=\$off_$e"
  at=ffffffff$(printf '%08x' $((0x${text#ffffffff} + off)))
  # 6.12 (IBT) moves a probe on a function's entry past its endbr64: 4 bytes on.
  at4=ffffffff$(printf '%08x' $((0x${text#ffffffff} + off + 4)))
  grep -q "^$at  *k  *proc_single_open+0x0" /sys/kernel/debug/kprobes/list ||
    grep -q "^$at4  *k  *proc_single_open+0x4" /sys/kernel/debug/kprobes/list ||
    kpp_fail "kprobes/list has no proc_single_open at _text ($text) + $off = $at"
  grep -q "^$at " /tmp/copies || kpp_fail "$at (probe:$e) is not one of kallsyms' proc_single_open"
done
kpp_ok "kprobes/list shows both probes at kallsyms' _text + OFF, two different proc_single_open"

# 3. --list: the function the kernel has there, the anchor, the hits.
kpp_run list -l
grep -Eq "^  probe:pbase +\\(on proc_single_open@<_text\\+$off_pbase>\\)( \\[[A-Z]+\\])* hits=[1-9]" /tmp/list.out ||
  kpp_fail "-l: no '  probe:pbase (on proc_single_open@<_text+$off_pbase>) hits=N' line"
kpp_run dis --disable 'probe:p*'
kpp_run del -d 'probe:p*'
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "-d left kprobe_events: $(cat "$T/kprobe_events")"
kpp_ok "--list shows proc_single_open@<_text+OFF> with hits; -d removed both"

# 4. Without a DWARF vmlinux (no -k, none where distributions put it) the spec comes from
# BTF, which has no addresses to tell the copies apart: refused, nothing written.
[ -r /sys/kernel/btf/vmlinux ] || kpp_skip "no /sys/kernel/btf/vmlinux"
kpp_run btfdup --add proc_single_open
[ $rc -eq 1 ] || kpp_fail "--add proc_single_open from BTF exited $rc, not 1"
grep -q "'proc_single_open' names 2 symbols in the running kernel" /tmp/btfdup.err ||
  kpp_fail "the BTF refusal does not say that proc_single_open names 2 symbols"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "a refused add left kprobe_events: $(cat "$T/kprobe_events")"
kpp_ok "from BTF, the ambiguous proc_single_open is refused with the reason"

# 5. The blacklist by address, through a _text anchor.
grep '	process_fetch_insn$' /sys/kernel/debug/kprobes/blacklist >/tmp/black
kpp_show "blacklisted process_fetch_insn" /tmp/black
[ -s /tmp/black ] || kpp_skip "process_fetch_insn is not blacklisted in this kernel"
kpp_run black -k "$KPP_VMLINUX" --add 'process_fetch_insn@kernel/trace/trace_kprobe.c'
[ $rc -eq 1 ] || kpp_fail "--add of the blacklisted process_fetch_insn exited $rc, not 1"
grep -q 'blacklist lists process_fetch_insn (0x' /tmp/black.err ||
  kpp_fail "the refusal does not name the blacklist range of process_fetch_insn"
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "a refused add left kprobe_events: $(cat "$T/kprobe_events")"
kpp_ok "process_fetch_insn@trace_kprobe.c (a _text anchor) refused by the blacklist's address range"
