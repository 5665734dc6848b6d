#!/usr/bin/env bash
# `kprobe-probe --list` with 200 uprobes defined (issue 7: under 20 ms), next to
# `perf probe --list`: see bench/list_bench.py. Root; a kernel with uprobes.
#
# usage: bench/list_bench.sh [--build DIR] [--probes N] [--reps N] [--markdown]
#   --build DIR   build directory with src/cli/kprobe-probe and the e2e fixtures (default: build)
#   --probes N    uprobes to define (default 200), in a group of their own, removed at the end
#   --reps N      runs of each command; the median is reported (default 11)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/list_bench.py" "$@"
