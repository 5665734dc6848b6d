#!/usr/bin/env bash
# `cmake --install` into a temporary prefix: the program (stripped by a Release
# install), the demo program with its DWARF, the man page that man opens, and
# the bash completion; the installed program runs and its --help names --version.
# usage: install_test.sh BUILD_DIR BUILT_PROGRAM VERSION
set -euo pipefail
build=$1 built=$2 version=$3
prefix=$(mktemp -d /tmp/kpptest_install_$$_XXXX)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
has_debug_info() { readelf -S -W "$1" | grep -q ' \.debug_info '; }
has_symtab() { readelf -S -W "$1" | grep -q ' \.symtab '; }

[ -f "$build/Documentation/kprobe-probe.1.gz" ] ||
  { echo "SKIP: the man page was not built (asciidoc, xmlto: scripts/install-deps.sh)"; exit 77; }
command -v readelf >/dev/null || { echo "SKIP: readelf (binutils) is not installed"; exit 77; }

cmake --install "$build" --prefix "$prefix" --config Release >/dev/null
for f in bin/kprobe-probe libexec/kprobe-probe/kpp_demo share/man/man1/kprobe-probe.1.gz \
         share/bash-completion/completions/kprobe-probe; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
program=$prefix/bin/kprobe-probe
# The build's program carries its DWARF (RelWithDebInfo): the installed one must not.
if has_debug_info "$built"; then
  has_debug_info "$program" && fail "bin/kprobe-probe still has .debug_info after a Release install"
  has_symtab "$program" && fail "bin/kprobe-probe still has .symtab after a Release install"
  echo "stripped: $(stat -c %s "$built") -> $(stat -c %s "$program") bytes"
fi
has_debug_info "$prefix/libexec/kprobe-probe/kpp_demo" || fail "kpp_demo lost the DWARF the demo probes it by"

[ "$("$program" --version)" = "kprobe-probe $version" ] || fail "--version printed '$("$program" --version)'"
"$program" --help | grep -q -- '--version' || fail "--help does not name --version"
MANWIDTH=200 man -l "$prefix/share/man/man1/kprobe-probe.1.gz" 2>/dev/null | grep -q '^ *--version' ||
  fail "the installed man page does not render --version"
bash -n "$prefix/share/bash-completion/completions/kprobe-probe" || fail "the completion is not valid bash"
echo PASS
