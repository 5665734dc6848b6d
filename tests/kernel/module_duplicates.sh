#!/bin/sh
# A name a module holds more than once (tests/kernel/dup_module: two static 'show',
# linked into one relocatable object as a module's files are). The kernel refuses
# 'dup_module:show+0' as ambiguous, so the copy of second.c is written on the nearest
# unique function symbol before it in .text, 'dup_module:first_entry+OFF', OFF being
# nm's address of that show minus first_entry's; the copy of first.c, first in .text,
# has no such symbol and is refused with the reason.
K=${1:?usage: module_duplicates.sh KPROBE_PROBE MODULE.ko}
M=${2:?usage: module_duplicates.sh KPROBE_PROBE MODULE.ko}
fail() { echo "FAIL: $*"; exit 1; }
nm -n "$M"
shows=$(nm -n "$M" | awk '$3 == "show" { print $1 }')
[ "$(echo "$shows" | wc -l)" -eq 2 ] || fail "nm does not show two 'show' in $M"
second_show=$(echo "$shows" | tail -n1)
first_entry=$(nm "$M" | awk '$3 == "first_entry" { print $1 }')
off=$(( 0x$second_show - 0x$first_entry ))
[ "$off" -gt 0 ] || fail "second.c's show is not after first_entry in $M"
got=$("$K" -m "$M" -D 'show@second.c' 2>&1) || fail "-D show@second.c exited $?: $got"
[ "$got" = "p:probe/show dup_module:first_entry+$off" ] ||
  fail "-D show@second.c: got '$got', want 'p:probe/show dup_module:first_entry+$off'"
echo "ok: show@second.c -> $got"
err=$("$K" -m "$M" -D 'show@first.c' 2>&1) && fail "-D show@first.c was accepted: $err"
echo "$err" | grep -q "'show' names 2 functions in module dup_module and no function symbol before it" ||
  fail "-D show@first.c: the refusal does not say why: $err"
echo "ok: show@first.c refused: $(echo "$err" | head -n1)"
echo PASS
