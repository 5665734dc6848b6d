#!/usr/bin/env bash
# Quick start, second command (and what CI runs): installs what the build and
# the tests need, builds everything, and runs the whole test suite: unit
# tests, end-to-end tests on real uprobes, trace.dat read back by trace-cmd,
# and kernel probes in a qemu guest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
scripts/build.sh -DKPP_BUILD_TESTS=ON
# The tests run against the real tracefs; mount it if this machine has not.
if ! mountpoint -q /sys/kernel/tracing 2>/dev/null; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
# One test at a time: several tests measure event rates and probe hits.
rc=0
ctest --test-dir build --output-on-failure --timeout 900 || rc=$?
# A failing test's output scrolls by in the middle of a long run, and CI keeps
# only the end of what is printed: say again, last, why each test failed.
failed=build/Testing/Temporary/LastTestsFailed.log
if [ "$rc" -ne 0 ] && [ -s "$failed" ]; then
  scripts/failed_test_output.sh build/Testing/Temporary/LastTest.log "$failed"
fi
exit "$rc"
