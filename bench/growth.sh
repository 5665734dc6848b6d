#!/usr/bin/env bash
# How lookup cost grows with the size of the debug info (an e2e fixture, a
# generated 120-file C program, kprobe-probe itself, Debian's cloud vmlinux) and
# with the number of specs in one command (1, 10, 100 on the vmlinux): wall time
# and peak RSS, perf probe and ours (cold and warm), medians. See bench/growth.py.
#
# usage: bench/growth.sh [--build DIR] [--reps N] [--markdown]
#   --build DIR   build directory with src/cli/kprobe-probe and the e2e fixtures (default: build)
#   --reps N      runs per measurement (default 5)
#   --markdown    print the tables as Markdown (for README.md's Performance section)
#
# Needs perf, gcc, readelf, python3; offline once the kernel is cached.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel_dir=$("$here/../tests/guest/fetch-kernel.sh")
exec python3 "$here/growth.py" --vmlinux "$kernel_dir/debug/vmlinux" "$@"
