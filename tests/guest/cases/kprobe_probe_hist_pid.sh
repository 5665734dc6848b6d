#!/bin/sh
# hist -p (issue 31): a uprobe counted by the kernel's hist trigger for one of two
# processes that run the same program (pid_fixture: work(TAG, ROUND) every 20 ms).
#  - without -p, the probe fires in both: rows of tag 1 and of tag 2 (a uprobe is
#    placed in the file, not in a process);
#  - hist -p A --by tag --by round: only A's calls are counted, in the kernel
#    (set_event_pid): no row of B's tag 2, each of A's rounds once, up to its last
#    (ROUNDS - 1); the run ends when A exits 0, exits 0 itself and says so;
#  - hist --pid-only -- CMD: the command's calls only, from setup on;
#  - a target that exits and whose pid is given at once to a new process running the
#    same program: the new one is never counted while the other target runs;
# and nothing is left: no trigger, no instance, no probe.
. /kpp/lib.sh
T=$KPP_TRACING
F=/kpp/files/pid_fixture
G=kpp_hist_pid
ROUNDS=1000
[ -e "$T/uprobe_events" ] || kpp_skip "this kernel has no uprobe_events"
a=
b=
c=
trap 'rc=$?; kill -9 $a $b $c 2>/dev/null; kpp_remove_instances; kprobe-probe -q -d "$G:*" >/dev/null 2>&1; exit $rc' EXIT

$F 2 200 &
b=$!
$F 1 100 $ROUNDS &
a=$!
kpp_run add -p $a --add "$G:work=work tag round"
[ $rc -eq 0 ] || kpp_fail "kprobe-probe -p $a --add exited $rc"
grep -q "kprobe-probe trace -p $a -e $G:work" /tmp/add.err || kpp_fail "the suggestion after --add -p is not 'trace -p $a'"
[ -e "$T/events/$G/work/hist" ] || kpp_skip "this kernel has no hist triggers"

# 1. Without -p: both processes' calls.
kpp_run both hist -e $G:work --by tag --duration 3 --json
[ $rc -eq 0 ] || kpp_fail "hist without -p exited $rc"
grep -q '"tag":1[,}]' /tmp/both.out && grep -q '"tag":2[,}]' /tmp/both.out ||
  kpp_fail "hist without -p: not both tags 1 and 2 (the probe fires in every process running the file)"
kpp_ok "without -p the probe fires in both processes"

# 2. -p A: A's rounds only, each once; ends when A exits.
kill -0 $a 2>/dev/null || kpp_fail "A ($a) exited before hist -p started: make ROUNDS larger"
kpp_run one hist -p $a -e $G:work --by tag --by round --json
[ $rc -eq 0 ] || kpp_fail "hist -p exited $rc, not 0 when its target exits"
wait $a
arc=$?
apid=$a
a=
[ $arc -eq 0 ] || kpp_fail "A exited $arc"
grep -q "pid [0-9]* (pid_fixture) exited" /tmp/one.err || kpp_fail "hist -p does not say that its target exited"
rows=$(grep -c '"key":' /tmp/one.out)
[ "$rows" -ge 20 ] || kpp_fail "hist -p counted $rows rounds of A, fewer than 20"
grep '"key":' /tmp/one.out | grep -qv '"tag":1,' && kpp_fail "hist -p $apid counted a call of another process (tag other than A's 1)"
grep '"key":' /tmp/one.out | grep -qv '"hits":1[,}]' && kpp_fail "hist -p: a round of A counted other than once"
sed -n 's/.*"round":\([0-9]*\).*/\1/p' /tmp/one.out | sort -n >/tmp/rounds
last=$(tail -n1 /tmp/rounds)
[ "$last" = $((ROUNDS - 1)) ] || kpp_fail "hist -p: A's last round counted is $last, not $((ROUNDS - 1))"
awk 'NR > 1 && $1 != prev + 1 { print "round " prev + 1 " missing"; bad = 1 } { prev = $1 } END { exit bad }' /tmp/rounds ||
  kpp_fail "hist -p: A's rounds are not all counted from the first one seen to its last"
kpp_ok "hist -p $apid: $rows rounds of A counted once each, up to its last ($last), none of B; exit 0 when A exited"

# 2b. hist --pid-only -- CMD: the command's calls only, from its first: its pid is in
# set_event_pid before the trigger is written (a trigger counts with tracing off), so B,
# which runs all along, is never counted, not even while hist sets up.
kpp_run po hist --pid-only -e $G:work --by tag --json -- $F 3 300 30
[ $rc -eq 0 ] || kpp_fail "hist --pid-only -- CMD exited $rc"
grep -q '"tag":2[,}]' /tmp/po.out && kpp_fail "hist --pid-only counted B, which is not its command"
grep '"tag":3[,}]' /tmp/po.out | grep -q '"hits":30[,}]' || kpp_fail "hist --pid-only: the command's 30 calls are not one row of 30 hits"
kpp_ok "hist --pid-only -- CMD: the command's 30 calls, none of B"

# 3. A pid is not a process for ever: hist -p A2 -p B2; A2 exits, is reaped, and its pid
# is given at once to C (ns_last_pid; nothing else forks in the guest), which runs the
# same program: C's calls are never counted (the kernel's set_event_notrace_pid), B2's are.
$F 6 600 400 &
b2=$!
$F 5 500 150 &
a2=$!
kprobe-probe hist -p $a2 -p $b2 -e $G:work --by tag --json >/tmp/re.out 2>/tmp/re.err &
hp=$!
kpp_wait_hist_trigger $G/work || { kpp_show "hist stderr" /tmp/re.err; kpp_fail "hist -p A2 -p B2 installed no trigger"; }
kill -0 $a2 2>/dev/null || kpp_fail "A2 exited before hist was counting: make its rounds more"
wait $a2
echo $((a2 - 1)) >/proc/sys/kernel/ns_last_pid || kpp_skip "cannot write ns_last_pid to reuse a pid"
# (C runs its program after a second: the run, woken by A2's exit, has taken A2's ids
# out by then; what this proves is that set_event_pid, which still holds them in hist's
# mode, no longer counts them.)
sh -c "sleep 1; exec $F 7 700" &
c=$!
[ "$c" = "$a2" ] || { kill -9 $c; kpp_fail "C got pid $c, not A2's $a2: something else forked"; }
wait $hp
rc=$?
kill -9 $c
wait $c 2>/dev/null
c=
kpp_show "hist -p A2 -p B2 stdout" /tmp/re.out
kpp_show "hist -p A2 -p B2 stderr" /tmp/re.err
[ $rc -eq 0 ] || kpp_fail "hist -p A2 -p B2 exited $rc"
grep -q '"tag":7[,}]' /tmp/re.out && kpp_fail "hist counted C, which got the exited A2's pid $a2"
grep -q '"tag":5[,}]' /tmp/re.out && grep -q '"tag":6[,}]' /tmp/re.out || kpp_fail "hist -p A2 -p B2: not both A2's and B2's rows"
grep -q '"tag":2[,}]' /tmp/re.out && kpp_fail "hist -p A2 -p B2 counted B (not a target)"
kpp_ok "pid $a2 reused by C at once: C never counted; A2 and B2 counted until B2 exited"

# 4. Nothing left behind.
ls -d "$T"/instances/kprobe-probe-* 2>/dev/null && kpp_fail "hist -p left an instance"
grep -q '^hist' "$T/events/$G/work/trigger" && kpp_fail "a hist trigger is left on $G:work"
kpp_run del -d "$G:*"
[ $rc -eq 0 ] || kpp_fail "-d exited $rc"
[ -z "$(cat "$T/uprobe_events")" ] || kpp_fail "uprobe_events not empty: $(cat "$T/uprobe_events")"
kpp_ok "no trigger or instance left; the probe removed"
