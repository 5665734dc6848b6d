#!/usr/bin/env bash
# Configures and builds kprobe-probe in ./build (2 jobs: the machines have 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j2
