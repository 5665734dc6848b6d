#!/usr/bin/env bash
# DWARF user stacks, side by side with perf in the same run: the same uprobe
# (leaf's first instruction, -O2 without frame pointers: only CFI finds the
# caller) hit CALLS times at several rates, consumed by
#   ours   kprobe-probe trace --stack --folded (sample, unwind, name, count)
#   rec    kprobe-probe record --stack (sample, unwind, name, keep in the
#          trace.dat), then report --folded -- their two times added
#   perf   perf record -e GROUP:leaf --call-graph dwarf, then perf script
#          (sample, then unwind and name) -- their two times added
# Each row: hits the workload made, events the tool output, events whose stack
# holds the whole chain (main;middle;helper;leaf), events lost (the tool's own
# count), wall seconds (start to output written, workload included), events
# per second of that wall time, and the tool's CPU seconds (user+sys).
#
# usage: bench/dwarf_stack_bench.sh [--build DIR] [--calls N] [--rates "0 5 1"]   (root)
#   --calls N     hits per run (default 100000)
#   --rates LIST  thousands of hits per ms-burst ("PER_MS" of the workload; 0 = tight loop)
set -euo pipefail

build=build
calls=100000
rates="0 20 5 1"
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    *) sed -n '14,16p' "$0" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "dwarf_stack_bench: needs root (uprobes, perf)" >&2; exit 1; }
command -v perf >/dev/null || { echo "dwarf_stack_bench: perf is not installed (linux-perf)" >&2; exit 1; }
kpp=$(realpath "$build/src/cli/kprobe-probe")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/kpp_dwarf_bench.XXXXXX)
group=kppbench_dwarf_$$
cleanup() { "$kpp" -q -d "$group:*" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
gcc -O2 -g -fomit-frame-pointer -o "$work/workload" "$here/dwarf_stack_workload.c"
"$kpp" -q -x "$work/workload" --add "$group:leaf=leaf"

# wall seconds and CPU seconds of a command, its stdout to $2, stderr to $3
timed() {
  local out=$1 err=$2; shift 2
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >"$out" 2>"$err"
  awk '{printf "%s %.2f", $1, $2 + $3}' "$work/time"
}

printf '%-8s %-5s %8s %8s %8s %8s %7s %10s %6s\n' rate tool hits events whole lost wall_s events/s cpu_s
for rate in $rates; do
  label=$([ "$rate" = 0 ] && echo tight || echo "${rate}k/s")
  # ours
  read -r wall cpu < <(timed "$work/ours.folded" "$work/ours.err" \
    "$kpp" trace -e "$group:leaf" --stack --folded -- "$work/workload" "$calls" "$rate"; echo)
  events=$(awk '{s += $NF} END {print s + 0}' "$work/ours.folded")
  whole=$(awk '/;main;middle;helper;leaf /{s += $NF} END {print s + 0}' "$work/ours.folded")
  lost=$(grep -oE 'lost (the user stacks of )?[0-9]+' "$work/ours.err" | grep -oE '[0-9]+' | awk '{s += $1} END {print s + 0}' || true)
  printf '%-8s %-5s %8d %8d %8d %8d %7.2f %10.0f %6.2f\n' "$label" ours "$calls" "$events" "$whole" "$lost" \
    "$wall" "$(echo "$events / $wall" | bc -l)" "$cpu"
  # ours, recorded: record, then report --folded
  read -r wall1 cpu1 < <(timed /dev/null "$work/rec.err" \
    "$kpp" record -e "$group:leaf" --stack -o "$work/rec.dat" -- "$work/workload" "$calls" "$rate"; echo)
  read -r wall2 cpu2 < <(timed "$work/rec.folded" "$work/report.err" "$kpp" report --folded "$work/rec.dat"; echo)
  events=$(awk '{s += $NF} END {print s + 0}' "$work/rec.folded")
  whole=$(awk '/;main;middle;helper;leaf /{s += $NF} END {print s + 0}' "$work/rec.folded")
  lost=$(grep -oE 'lost (the user stacks of )?[0-9]+' "$work/rec.err" | grep -oE '[0-9]+' | awk '{s += $1} END {print s + 0}' || true)
  wall=$(echo "$wall1 + $wall2" | bc -l)
  printf '%-8s %-5s %8d %8d %8d %8d %7.2f %10.0f %6.2f\n' "$label" rec "$calls" "$events" "$whole" "$lost" \
    "$wall" "$(echo "$events / $wall" | bc -l)" "$(echo "$cpu1 + $cpu2" | bc -l)"
  echo "$label rec: trace.dat $(stat -c %s "$work/rec.dat") bytes" >&2
  rm -f "$work/rec.dat"
  # perf: record, then script
  read -r wall1 cpu1 < <(timed /dev/null "$work/perf.err" \
    perf record -q -e "$group:leaf" --call-graph dwarf -o "$work/perf.data" -- "$work/workload" "$calls" "$rate"; echo)
  read -r wall2 cpu2 < <(timed "$work/perf.script" "$work/script.err" perf script -i "$work/perf.data"; echo)
  events=$(grep -c "$group:leaf:" "$work/perf.script" || true)
  events=${events:-0}
  whole=$(awk '/ leaf\+0x0 /{l=1; next} l && / helper\+/{h=1; next} h && / middle\+/{m=1; next} m && / main\+/{n++} /^$/{l=h=m=0} END {print n + 0}' "$work/perf.script")
  lost=$(perf report -i "$work/perf.data" --stats 2>/dev/null | awk '/LOST_SAMPLES events:/{n = $3} END {print n + 0}' || true)
  wall=$(echo "$wall1 + $wall2" | bc -l)
  printf '%-8s %-5s %8d %8d %8d %8d %7.2f %10.0f %6.2f\n' "$label" perf "$calls" "$events" "$whole" "${lost:-0}" \
    "$wall" "$(echo "$events / $wall" | bc -l)" "$(echo "$cpu1 + $cpu2" | bc -l)"
done
