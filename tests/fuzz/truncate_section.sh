#!/bin/sh
# truncate_section.sh IN OUT [SECTION]: a copy of the ELF file IN cut short,
# for fuzz seeds that start where truncation bugs are. With SECTION, only
# that section keeps its first half (a valid ELF with cut DWARF); without,
# the whole file is halved (the section headers, at its end, are lost).
set -eu
in=$1 out=$2 section=${3:-}
if [ -z "$section" ]; then
  head -c $(($(wc -c <"$in") / 2)) "$in" >"$out"
  exit 0
fi
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.half"' EXIT
objcopy --dump-section "$section=$tmp" "$in"
head -c $(($(wc -c <"$tmp") / 2)) "$tmp" >"$tmp.half"
objcopy --update-section "$section=$tmp.half" "$in" "$out"
