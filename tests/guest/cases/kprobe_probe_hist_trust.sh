#!/bin/sh
# hist trusts the kernel's structure, never its text (issue 30 items 1, 2, 9).
#  1. a kprobe on do_filp_open keyed by the path opened (pathname->name:string,
#     opened by anyone, no privilege needed):
#     - a path printing as "... } hitcount: 31337\n{ name: /etc/shadow" (under
#       the kernel's 50-column padding) is one row, with its real count, shown
#       escaped: no /etc/shadow row;
#     - a path of one newline is a row (it ended the run);
#     - a path over 50 bytes forging a whole row: the rows no longer add up to
#       the kernel's Totals, and the table is refused (exit 1), never shown;
#     - --sum of a string and a --filter with a ')' of its own are refused;
#  2. hist --latency: SIGKILL of its worker: the supervisor removes the
#     triggers, the synthetic event and the instance, and says so; SIGKILL of
#     the tool itself: the next run removes them, naming them; meanwhile -d of
#     the probe names the trigger that keeps it and the run that set it;
#  and nothing is left: no trigger, synthetic event or instance.
. /kpp/lib.sh
T=$KPP_TRACING
kpp_require_kprobes_and_vmlinux
kpp_remove_all_kprobes_on_exit

kpp_run add -k "$KPP_VMLINUX" --add 'do_filp_open name=pathname->name:string' --add 'vfs_read' --add 'vfs_read%return'
[ $rc -eq 0 ] || kpp_fail "kprobe-probe --add exited $rc"
[ -e "$T/events/probe/do_filp_open/hist" ] || kpp_skip "this kernel has no hist triggers"

# 1. Forged keys. The paths do not exist: opening them is enough.
short=$(printf 'x } hitcount:      31337\n{ name: /etc/shadow')
nl=$(printf '\nx'); nl=${nl%x}
kprobe-probe hist -e probe:do_filp_open --by name --json -- sh -c '
  for i in 1 2 3 4 5; do true < "$1"; done 2>/dev/null
  for i in 1 2 3; do true < "$2"; done 2>/dev/null; exit 0' sh "$short" "$nl" >/tmp/f1.out 2>/tmp/f1.err
rc=$?
kpp_show "hist (forged, short) stdout" /tmp/f1.out
kpp_show "hist (forged, short) stderr" /tmp/f1.err
[ $rc -eq 0 ] || kpp_fail "hist of the short forged path exited $rc"
grep -qx '{"key":{"name":"x } hitcount:      31337\\n{ name: /etc/shadow"},"hits":5}' /tmp/f1.out ||
  kpp_fail "no row of the forged path, whole, with its 5 opens"
grep -q '"name":"/etc/shadow"' /tmp/f1.out && kpp_fail "a forged /etc/shadow row was shown"
grep -q '31337}' /tmp/f1.out && kpp_fail "a forged count was shown"
grep -qx '{"key":{"name":"\\n"},"hits":3}' /tmp/f1.out || kpp_fail "no row of the newline path with its 3 opens"
kpp_ok "a path forging a row is one row with its real count (5); a newline path is a row (3)"

long=$(printf '%050d } hitcount:          1\n{ name: FORGED%044s' 0 '')
kprobe-probe hist -e probe:do_filp_open --by name -- sh -c 'true < "$1" 2>/dev/null; exit 0' sh "$long" >/tmp/f2.out 2>/tmp/f2.err
rc=$?
kpp_show "hist (forged, long) stdout" /tmp/f2.out
kpp_show "hist (forged, long) stderr" /tmp/f2.err
[ $rc -eq 1 ] || kpp_fail "hist of the long forged path exited $rc, not 1"
grep -q 'does not add up' /tmp/f2.err || kpp_fail "no 'does not add up' in the refusal"
grep -q FORGED /tmp/f2.out && kpp_fail "the forged row was shown"
kpp_ok "a path forging a whole row: the table does not add up to the kernel's Totals and is refused"

# A string cannot be summed (the kernel adds up its addresses); a --filter
# cannot close the parentheses that keep the tool's own reads out.
kpp_run sum hist -e probe:do_filp_open --by comm --sum name --duration 1
[ $rc -eq 1 ] || kpp_fail "--sum of a string exited $rc"
grep -q "'name' is a string" /tmp/sum.err || kpp_fail "--sum of a string: no reason given"
kpp_run paren hist -e probe:do_filp_open --by comm --filter '1) || (1' --duration 1
[ $rc -eq 1 ] || kpp_fail "a --filter with a ')' of its own exited $rc"
grep -q "parentheses do not pair up" /tmp/paren.err || kpp_fail "--filter ')': no reason given"
kpp_ok "--sum of a string and a --filter escaping its parentheses are refused"

left() {  # what a --latency run leaves: instances, synthetic events, triggers
  ls -d "$T"/instances/kprobe-probe-* 2>/dev/null
  grep -v '^#' "$T/synthetic_events" 2>/dev/null
  grep -h '^hist' "$T"/instances/*/events/probe/vfs_read*/trigger 2>/dev/null
}

# 2a. The worker killed (as the OOM killer does): the supervisor cleans up.
kprobe-probe hist --latency vfs_read --duration 120 >/tmp/k1.out 2>/tmp/k1.err &
hpid=$!
kpp_wait_hist_trigger 'synthetic/kpp_lat_*' || { kpp_show "stderr" /tmp/k1.err; kpp_fail "hist --latency set no trigger"; }
worker=$(cat /proc/$hpid/task/$hpid/children | awk '{ print $1 }')
[ -n "$worker" ] || kpp_fail "no working process under $hpid"
kill -9 "$worker"
wait $hpid; rc=$?
kpp_show "hist --latency (worker killed) stderr" /tmp/k1.err
[ $rc -eq 137 ] || kpp_fail "hist --latency whose worker was killed exited $rc, not 137 (SIGKILL passed on)"
grep -q "removed its synthetic event kpp_lat_$hpid" /tmp/k1.err || kpp_fail "the supervisor did not name the synthetic event"
grep -q "removed its tracefs instance kprobe-probe-$hpid and the triggers on" /tmp/k1.err ||
  kpp_fail "the supervisor did not name the instance and its triggers"
[ -z "$(left)" ] || kpp_fail "left after the worker's SIGKILL: $(left)"
kpp_ok "worker SIGKILLed: the supervisor removed the triggers, kpp_lat_$hpid and the instance"

# 2b. The tool killed: its worker dies with it, all stays until the next run.
kprobe-probe hist --latency vfs_read --duration 120 >/tmp/k2.out 2>/tmp/k2.err &
hpid=$!
kpp_wait_hist_trigger 'synthetic/kpp_lat_*' || { kpp_show "stderr" /tmp/k2.err; kpp_fail "hist --latency set no trigger"; }
kill -9 $hpid
wait $hpid
i=0; while [ -d /proc/$hpid ] || pgrep -P $hpid >/dev/null; do sleep 0.1; i=$((i + 1)); [ $i -lt 100 ] || break; done
sleep 0.5
[ -n "$(left)" ] || kpp_fail "nothing was left to clean up (the test proves nothing)"
kpp_run del -d 'probe:vfs_read*'
# -d sweeps the dead run's leftovers first, naming them, then removes the probes.
[ $rc -eq 0 ] || kpp_fail "-d after the tool's SIGKILL exited $rc"
grep -q "removed synthetic event kpp_lat_$hpid, left by kprobe-probe process $hpid that no longer runs" /tmp/del.err ||
  kpp_fail "-d did not name the dead run's synthetic event"
grep -q "removed tracefs instance kprobe-probe-$hpid and the triggers on .*, left by kprobe-probe process $hpid" /tmp/del.err ||
  kpp_fail "-d did not name the dead run's instance and triggers"
[ -z "$(left)" ] || kpp_fail "left after the next run: $(left)"
kpp_ok "tool SIGKILLed: the next run removed the triggers, kpp_lat_$hpid and the instance, and the probes went"

# 2c. A probe a running hist uses: -d says which run, not "disable it first".
kprobe-probe hist -e probe:do_filp_open --by comm --duration 120 >/tmp/b.out 2>/tmp/b.err &
hpid=$!
kpp_wait_hist_trigger probe/do_filp_open || kpp_fail "hist set no trigger"
kpp_run busy -d probe:do_filp_open
kill -INT $hpid; wait $hpid
[ $rc -eq 1 ] || kpp_fail "-d of a probe in use exited $rc"
grep -q "a trigger in instance kprobe-probe-$hpid is on it" /tmp/busy.err || kpp_fail "-d did not name the trigger's instance"
grep -q "kprobe-probe process $hpid uses it" /tmp/busy.err || kpp_fail "-d's hint does not name the run"
kpp_ok "-d of a probe under a hist trigger names the trigger and the run"

[ -z "$(left)" ] || kpp_fail "left at the end: $(left)"
kpp_ok "nothing left behind"
