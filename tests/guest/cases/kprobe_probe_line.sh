#!/bin/sh
# Line probes inside kernel functions (issue 4), reading locals whose values this script
# controls, checked exactly:
#  - do_sys_openat2, at the first line where the local 'tmp' (tmp = getname(filename))
#    is readable: tmp->name:string is the path a cat opens, a name unique to this run;
#  - ksys_read, at the last line where its locals 'ret' and 'pos' are both readable (past
#    'ret = vfs_read(f.file, buf, count, ppos)', before f_pos is updated from pos): a dd
#    with bs=13 skip=2 count=1 on a file of 100 bytes reads 13 bytes ending at offset 39,
#    so ret=13 and pos=39.
# The lines are not hard-coded: the script asks kprobe-probe (-L for the probeable lines,
# -V FUNC:LINE for what is readable at each), so a kernel update moves them without
# breaking the case. On Debian's 6.1.0-57
# they are do_sys_openat2:11 (the 'if (IS_ERR(tmp))' after getname) and ksys_read:14
# ('fdput_pos(f)' after vfs_read).
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux

cleanup() {
  rc=$?
  kpp_remove_all_kprobes
  rm -f /tmp/kpp-line-*
  exit $rc
}
trap cleanup EXIT

kpp() { kprobe-probe -k "$KPP_VMLINUX" "$@"; }

# Every probeable line of both functions (-L) and what is readable at each (-V FUNC:LINE,
# all in one run: the vmlinux is large and the guest emulated). A variable counts as
# readable at a line when -V lists it at every address of that line.
kpp -L do_sys_openat2 -L ksys_read >/tmp/lines.out 2>/tmp/lines.err || { kpp_show "-L" /tmp/lines.err; kpp_fail "-L do_sys_openat2 -L ksys_read failed"; }
VARGS=$(awk '/^</ { f = substr($0, 2); sub(/@.*/, "", f) } $1 ~ /^[0-9]+$/ { printf " -V %s:%s", f, $1 }' /tmp/lines.out)
[ -n "$VARGS" ] || { kpp_show "-L" /tmp/lines.out; kpp_fail "-L listed no lines"; }
kpp $VARGS >/tmp/vars.out 2>/tmp/vars.err || { kpp_show "-V" /tmp/vars.err; kpp_fail "-V at the lines -L listed failed"; }
# Prints "FUNC:LINE VAR..." for each line, with the variables readable at all its addresses.
awk -F '\t' '
  function flush(  v, out) { if (at == "") return; out = at; for (v in n) if (n[v] == sites && !bad[v]) out = out " " v; print out }
  /^Available variables at / { flush(); at = $0; sub(/^Available variables at /, "", at); sites = 0; split("", n); split("", bad); next }
  /^ *@</ { sites++; next }
  NF >= 2 { n[$2]++; if ($0 ~ /not here/) bad[$2] = 1 }
  END { flush() }' /tmp/vars.out >/tmp/readable
kpp_show "readable locals per line" /tmp/readable
# The first line of do_sys_openat2 where tmp is readable; the last of ksys_read where
# both ret and pos are.
OPEN_LINE=$(awk '$1 ~ /^do_sys_openat2:/ { for (i = 2; i <= NF; i++) if ($i == "tmp") { sub(/.*:/, "", $1); print $1; exit } }' /tmp/readable)
READ_LINE=$(awk '$1 ~ /^ksys_read:/ { r = p = 0; for (i = 2; i <= NF; i++) { if ($i == "ret") r = 1; if ($i == "pos") p = 1 }
                                      if (r && p) { l = $1; sub(/.*:/, "", l) } } END { print l }' /tmp/readable)
[ -n "$OPEN_LINE" ] || kpp_fail "no line of do_sys_openat2 where the local tmp is readable"
[ -n "$READ_LINE" ] || kpp_fail "no line of ksys_read where the locals ret and pos are readable"
echo "do_sys_openat2:$OPEN_LINE reads tmp; ksys_read:$READ_LINE reads ret and pos"
[ "$OPEN_LINE" -gt 1 ] && [ "$READ_LINE" -gt 1 ] || kpp_fail "a line at a function's entry is not a line probe inside it"

kpp --add "do_sys_openat2:$OPEN_LINE path=tmp->name:string" --add "ksys_read:$READ_LINE ret pos" \
  >/tmp/add.out 2>/tmp/add.err
rc=$?
kpp_show "add stdout" /tmp/add.out
kpp_show "add stderr" /tmp/add.err
[ $rc -eq 0 ] || kpp_fail "kprobe-probe --add of the two line probes exited $rc"
cat "$T/kprobe_events" >/tmp/ke
kpp_show kprobe_events /tmp/ke
# Inside the function: an offset past the entry, not +0.
grep -Eq "^p:probe/do_sys_openat2_L$OPEN_LINE do_sys_openat2\+[1-9][0-9]* path=.*:string$" /tmp/ke ||
  kpp_fail "no probe:do_sys_openat2_L$OPEN_LINE at an offset inside do_sys_openat2 with a string path"
grep -Eq "^p:probe/ksys_read_L$READ_LINE ksys_read\+[1-9][0-9]* ret=[^ ]*:s64 pos=[^ ]*:s64$" /tmp/ke ||
  kpp_fail "no probe:ksys_read_L$READ_LINE at an offset inside ksys_read with ret and pos"
kpp_ok "line probes added inside do_sys_openat2 and ksys_read"

# The path: unique to this run.
P=/tmp/kpp-line-$$-Xy7q
echo hello >"$P"
kpp_run trace trace --pid-only -e 'probe:do_sys_openat2_L*' -- cat "$P"
[ $rc -eq 0 ] || kpp_fail "kprobe-probe trace -- cat $P exited $rc"
grep -q '^hello$' /tmp/trace.out || kpp_fail "cat's output is missing from the trace output"
grep -Eq "^ *[0-9]+\.[0-9]{9} \[[0-9]+\] cat-[0-9]+ probe:do_sys_openat2_L$OPEN_LINE path=\"$P\"$" /tmp/trace.out ||
  kpp_fail "no probe:do_sys_openat2_L$OPEN_LINE event from cat with path=\"$P\""
kpp_ok "cat's open: tmp->name was exactly \"$P\""

# The length: 100 bytes, read 13 at a time from offset 26 (skip=2 blocks of 13).
F=/tmp/kpp-line-$$-data
dd if=/dev/zero of="$F" bs=100 count=1 2>/dev/null
[ "$(wc -c <"$F")" -eq 100 ] || kpp_fail "cannot write a 100-byte file"
kpp_run rtrace trace --pid-only -e 'probe:ksys_read_L*' -- dd if="$F" of=/dev/null bs=13 skip=2 count=1
[ $rc -eq 0 ] || kpp_fail "kprobe-probe trace -- dd bs=13 skip=2 count=1 exited $rc"
# dd skips by lseek (one read) or by reading (three); either way one read of 13 bytes
# leaves the file position at 39.
grep -Eq "^ *[0-9]+\.[0-9]{9} \[[0-9]+\] dd-[0-9]+ probe:ksys_read_L$READ_LINE ret=13 pos=39$" /tmp/rtrace.out ||
  kpp_fail "no probe:ksys_read_L$READ_LINE event from dd with ret=13 pos=39"
kpp_ok "dd's read: ret was exactly 13 and pos 39"

# Nothing left behind.
kprobe-probe -d 'probe:*' >/tmp/del.out 2>&1 || { kpp_show "-d" /tmp/del.out; kpp_fail "kprobe-probe -d 'probe:*' failed"; }
[ -z "$(cat "$T/kprobe_events")" ] || kpp_fail "kprobe_events not empty after -d: $(cat "$T/kprobe_events")"
kpp_ok "-d removed both line probes"
