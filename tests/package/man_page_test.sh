#!/usr/bin/env bash
# The man page as `man -l` renders it holds every word of its asciidoc source,
# C++, ~N, _NAME and +OFFS as written (man_words.py), and names --version.
# usage: man_page_test.sh SOURCE.txt BUILT_PAGE.1
set -euo pipefail
source_txt=$1 page=$2
if [ ! -f "$page" ]; then
  echo "SKIP: $page was not built (asciidoc, xmlto missing? scripts/install-deps.sh; build kpp_man_page)"
  exit 77
fi
command -v man >/dev/null || { echo "SKIP: man (man-db) is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }
[ "$page" -nt "$source_txt" ] || { echo "FAIL: $page is older than $source_txt: rebuild kpp_man_page"; exit 1; }
rendered=$(mktemp)
trap 'rm -f "$rendered"' EXIT
# Wide enough that no line wraps (wrapping could hyphenate a word); UTF-8 so
# that man's typographic apostrophes come out as characters.
MANWIDTH=4000 LC_ALL=C.UTF-8 man -l "$page" >"$rendered" 2>/dev/null
python3 "$(dirname "$0")/man_words.py" "$source_txt" "$rendered"
grep -q -- '--version' "$rendered" || { echo "FAIL: the page does not name --version"; exit 1; }
echo "PASS"
