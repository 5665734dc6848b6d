#!/usr/bin/env bash
# Events out, side by side: the same uprobe firing in a tight loop on every CPU,
# consumed by `kprobe-probe record`, `kprobe-probe trace` (text to /dev/null) and
# trace-cmd's own path; then offline decoding of one large trace.dat by
# `kprobe-probe report` and `trace-cmd report`. Prints two tables.
#
# usage: bench/events_bench.sh [--build DIR] [--calls N] [--report-calls N]   (root)
#   --build DIR         the build directory (default: build); uses DIR/src/cli/kprobe-probe
#                       and the stream fixture DIR/tests/stream/kpp_stream_fixture
#   --calls N           uprobe hits per CPU for the streaming table (default 200000)
#   --report-calls N    hits per CPU in the file the report table decodes (default 500000)
#
# How each consumer is measured (consumer CPU = user+sys of the consumer process
# alone, from /usr/bin/time; the workload runs outside it):
#   record / trace  kprobe-probe starts, its instance is set up, the workload runs,
#                   kprobe-probe is stopped with SIGINT once the workload is done; the
#                   default ring-buffer size (what a user gets) -- losses are counted.
#   trace-cmd       `trace-cmd record` and `stream` need /proc/sys/kernel/ftrace_enabled,
#                   which these machines refuse, so trace-cmd's path is the one that
#                   works: an instance with a buffer big enough to hold every event
#                   (no losses by construction), the workload, then
#                   `trace-cmd extract -B` (the consumer) into a trace.dat.
# "consumed" is what reached the output: events decoded (trace), events in the file
# (record, extract; counted by reading the file back). "lost" is what the kernel
# dropped or overwrote (produced - consumed when the tool cannot say).
set -euo pipefail

build=build
calls=200000
report_calls=500000
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --report-calls) report_calls=$2; shift 2 ;;
    *) sed -n '7,11p' "$0" >&2; exit 2 ;;
  esac
done
kpp=$build/src/cli/kprobe-probe
fixture=$(realpath "$build/tests/stream/kpp_stream_fixture")
T=/sys/kernel/tracing
[ "$(id -u)" = 0 ] || { echo "events_bench: needs root" >&2; exit 77; }
[ -x "$kpp" ] && [ -x "$fixture" ] || { echo "events_bench: build kprobe-probe and kpp_stream_fixture in $build first" >&2; exit 2; }
[ -w $T/uprobe_events ] || { echo "events_bench: no $T/uprobe_events" >&2; exit 77; }
command -v trace-cmd >/dev/null || { echo "events_bench: trace-cmd is not installed" >&2; exit 77; }

group=kppbench_$$
tc_instance=kppbench-tc-$$
tmp=$(mktemp -d /tmp/kpp-events-bench.XXXXXX)
ncpu=$(nproc)
cleanup() {
  for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
  if [ -d $T/instances/$tc_instance ]; then
    echo 0 >$T/instances/$tc_instance/events/enable 2>/dev/null || true
    rmdir $T/instances/$tc_instance 2>/dev/null || true
  fi
  echo "-:$group/hit" >>$T/uprobe_events 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The fixture's kpp_fixture_hit(i, sq, name, tag) as a uprobe with the same four
# arguments the tests use: file offset = symbol address - segment address + segment offset.
sym=$((16#$(readelf -sW "$fixture" | awk '$8 == "kpp_fixture_hit" { print $2 }')))
off=
while read -r _ o v _ _ m _; do
  if [ $((sym >= v && sym < v + m)) = 1 ]; then off=$(printf '0x%x' $((sym - v + o))); break; fi
done < <(readelf -lW "$fixture" | awk '$1 == "LOAD"')
[ -n "$off" ] || { echo "events_bench: kpp_fixture_hit not found in $fixture" >&2; exit 1; }
echo "p:$group/hit $fixture:$off i=%di:s64 sq=%si:u64 name=+0(%dx):string tag=%cx:x64" >>$T/uprobe_events

# The workload: one fixture per CPU, pinned, N calls each.
workload() {   # $1: calls per CPU
  local c pids=()
  for ((c = 0; c < ncpu; c++)); do taskset -c $c "$fixture" bench "$1" >/dev/null & pids+=($!); done
  wait "${pids[@]}"   # only these: the consumer runs in the background too
}

# Waits until kprobe-probe (pid $1) has its instance tracing our event.
wait_ready() {
  local i=$T/instances/kprobe-probe-$1 n=0
  until [ "$(cat $i/events/$group/hit/enable 2>/dev/null)" = 1 ] && [ "$(cat $i/tracing_on 2>/dev/null)" = 1 ]; do
    n=$((n + 1)); [ $n -lt 500 ] || { echo "events_bench: kprobe-probe never started tracing" >&2; exit 1; }
    sleep 0.01
  done
}

# Prints "consumed lost cpu_seconds wall_seconds" for kprobe-probe record|trace.
run_kpp() {   # $1: record|trace, $2: calls per CPU
  local out=/dev/null args=()
  [ "$1" = record ] && args=(-o "$tmp/record.dat")
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$kpp" "$1" -e "$group:hit" "${args[@]}" >$out 2>"$tmp/err" &
  local tpid=$! kpid=
  while [ -z "$kpid" ]; do kpid=$(pgrep -P $tpid || true); sleep 0.01; done
  # This runs in a $(...) subshell: if it fails, stop kprobe-probe here, so the
  # main cleanup can remove the probe (a probe in use cannot be removed).
  trap 'kill -INT $kpid 2>/dev/null; wait $tpid 2>/dev/null' EXIT
  wait_ready "$kpid"
  local t0 t1
  t0=$(date +%s.%N)
  workload "$2"
  t1=$(date +%s.%N)
  sleep 0.3   # one more drain (the poll interval is 100 ms)
  kill -INT "$kpid"
  wait $tpid || { cat "$tmp/err" >&2; exit 1; }
  trap - EXIT
  local consumed lost
  consumed=$(sed -n 's/^\([0-9]*\) events.*/\1/p' "$tmp/err" | tail -n1)
  lost=$(sed -n 's/.*lost \([0-9]*\) events on cpu.*/\1/p' "$tmp/err" | awk '{ s += $1 } END { print s + 0 }')
  if [ "$1" = record ]; then
    # What a reader finds in the file, not what the tool says it wrote.
    consumed=$(trace-cmd report -i "$tmp/record.dat" 2>/dev/null | grep -c " hit: " || true)
  fi
  echo "$consumed $lost $(awk '{ print $1 + $2 }' "$tmp/time") $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}

# trace-cmd: accumulate in a big instance buffer, then extract.
run_trace_cmd() {   # $1: calls per CPU
  local i=$T/instances/$tc_instance
  mkdir $i
  # ~64 bytes an event (header, common fields, 4 args, the string) with room to spare.
  echo $(( $1 * 96 / 1024 + 4096 )) >$i/buffer_size_kb
  echo mono >$i/trace_clock
  echo 1 >$i/events/$group/hit/enable
  local t0 t1
  t0=$(date +%s.%N)
  workload "$1"
  t1=$(date +%s.%N)
  echo 0 >$i/tracing_on
  local overrun
  overrun=$(cat $i/per_cpu/cpu*/stats | awk '/^overrun:|^dropped events:/ { s += $NF } END { print s + 0 }')
  (cd "$tmp" && /usr/bin/time -f '%U %S' -o "$tmp/time" trace-cmd extract -B $tc_instance -o "$tmp/tc.dat" >/dev/null 2>"$tmp/err") ||
    { cat "$tmp/err" >&2; exit 1; }
  if [ -d $i ]; then   # extract -B removes the instance itself (trace-cmd 3.1)
    echo 0 >$i/events/enable; rmdir $i
  fi
  local consumed
  consumed=$(trace-cmd report -i "$tmp/tc.dat" 2>/dev/null | grep -c " hit: " || true)
  echo "$consumed $overrun $(awk '{ print $1 + $2 }' "$tmp/time") $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
}

row() {   # name produced "consumed lost cpu wall"
  local name=$1 produced=$2
  read -r consumed lost cpu wall <<<"$3"
  awk -v n="$name" -v p="$produced" -v c="$consumed" -v l="$lost" -v cpu="$cpu" -v w="$wall" 'BEGIN {
    printf "| %-36s | %9d | %9d | %6d | %6.2f | %8.0f | %7.2f | %6.1f%% |\n", n, p, c, l, w, p / w / '"$ncpu"', cpu, 100 * cpu / w }'
}

produced=$((calls * ncpu))
echo "# events_bench $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n): $(uname -r), $ncpu CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n1))"
echo "# fixture: kpp_fixture_hit uprobe (4 args: s64, u64, string, x64), $calls calls on each of $ncpu CPUs"
echo
echo "| consumer                             |  produced |  consumed |   lost | wall s | ev/s/CPU |   CPU s |  % core |"
echo "|--------------------------------------|-----------|-----------|--------|--------|----------|---------|---------|"
row "kprobe-probe record (default buffer)" $produced "$(run_kpp record $calls)"
row "kprobe-probe trace (default buffer)" $produced "$(run_kpp trace $calls)"
row "trace-cmd extract (buffer holds all)" $produced "$(run_trace_cmd $calls)"
echo
echo "(% core: consumer CPU time over the workload's wall time; trace-cmd extract runs after the"
echo " workload, so its share is of the same interval for comparison)"

# --- Offline decoding of one large file, recorded by kprobe-probe (v6).
"$kpp" record -q -e "$group:hit" -o "$tmp/big.dat" -- bash -c "$(declare -f workload); ncpu=$ncpu; fixture=$fixture; workload $report_calls" 2>"$tmp/err" ||
  { cat "$tmp/err" >&2; exit 1; }
events=$(trace-cmd report -i "$tmp/big.dat" 2>/dev/null | grep -c " hit: " || true)
size_mb=$(du -m "$tmp/big.dat" | cut -f1)
best() {   # runs "$@" 3 times, prints the best "user+sys wall"
  local k best_cpu=999999 best_wall=0
  for k in 1 2 3; do
    /usr/bin/time -f '%U %S %e' -o "$tmp/time" "$@" >/dev/null 2>&1
    read -r u s e <"$tmp/time"
    if awk -v a="$u" -v b="$s" -v c="$best_cpu" 'BEGIN { exit !(a + b < c) }'; then
      best_cpu=$(awk -v a="$u" -v b="$s" 'BEGIN { print a + b }'); best_wall=$e
    fi
  done
  echo "$best_cpu $best_wall"
}
rrow() {   # name "cpu wall"
  read -r cpu wall <<<"$2"
  awk -v n="$1" -v c="$cpu" -v w="$wall" -v e="$events" 'BEGIN {
    printf "| %-40s | %7.2f | %7.2f | %10.0f |\n", n, w, c, e / w }'
}
echo
echo "# report: one trace.dat, $events events, $size_mb MB; best of 3, output to /dev/null"
echo
echo "| reader                                   |  wall s |   CPU s | events/s   |"
echo "|------------------------------------------|---------|---------|------------|"
rrow "kprobe-probe report" "$(best "$kpp" report "$tmp/big.dat")"
rrow "kprobe-probe report --json" "$(best "$kpp" report --json "$tmp/big.dat")"
rrow "trace-cmd report" "$(best trace-cmd report -i "$tmp/big.dat")"
