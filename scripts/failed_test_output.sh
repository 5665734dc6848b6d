#!/usr/bin/env bash
# Prints the last lines of each failed test's output, read from ctest's own log.
# $1: build/Testing/Temporary/LastTest.log, $2: LastTestsFailed.log ("N:NAME" lines).
set -euo pipefail
log=$1
failed=$2
lines=${KPP_FAILED_OUTPUT_LINES:-40}
while IFS=: read -r _ name; do
  [ -n "$name" ] || continue
  echo
  echo "===== why $name failed (last $lines lines of its output) ====="
  # Between the test's "Output:" rule and its "<end of output>" marker.
  awk -v name="$name" '
    $0 ~ "^[0-9]+/[0-9]+ Test: " && $3 == name { intest = 1; next }
    intest && /^Output:$/ { getline; inout = 1; next }
    inout && /^<end of output>$/ { exit }
    inout { print }
  ' "$log" | tail -n "$lines"
done <"$failed"
