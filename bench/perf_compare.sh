#!/usr/bin/env bash
# kprobe-probe vs perf probe on Debian's cloud vmlinux (the kernel the guest tests
# boot, fetched once and cached by tests/guest/fetch-kernel.sh): the same specs
# through both tools, several repetitions each, medians of wall time and peak RSS,
# ours without the index cache (cold) and with it (warm). How cost grows with the
# size of the debug info and the number of specs: bench/growth.sh.
#
# usage: bench/perf_compare.sh [--build DIR] [--reps N] [--only REGEX] [--markdown]
#   --build DIR    build directory holding src/cli/kprobe-probe (default: build)
#   --reps N       repetitions per measurement (default 5); medians are reported
#   --only REGEX   only the specs whose label matches
#   --markdown     print the tables as Markdown (for README.md's Performance section)
#
# Needs perf (scripts/install-deps.sh --tests installs linux-perf), gcc, python3.
# Runs offline once the kernel is cached; perf is given -k so it does not look for
# the running kernel's debug info. The cache of the warm runs lives in a temporary
# XDG_CACHE_HOME, removed at the end; cold runs pass --no-cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel_dir=$("$here/../tests/guest/fetch-kernel.sh")
exec python3 "$here/perf_compare.py" --vmlinux "$kernel_dir/debug/vmlinux" "$@"
