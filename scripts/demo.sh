#!/usr/bin/env bash
# Quick start, first command: installs what the build needs, builds, and runs
# the bundled demo (probes on a small program, its hits decoded).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DKPP_BUILD_TESTS=OFF
exec build/src/cli/kprobe-probe demo
