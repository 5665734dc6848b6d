#!/usr/bin/env bash
# The bash completion, run by bash as a TAB runs it (COMP_LINE, COMP_POINT,
# COMP_WORDS, COMP_CWORD, then the function `complete` registered):
#   "kprobe-probe --lis"           -> --list (options read from --help)
#   "kprobe-probe tr"              -> trace
#   "kprobe-probe trace -e GROUP:" -> the event this test creates (from tracefs)
#   "kprobe-probe -d GROUP:"       -> the same event (dynamic events)
#   "kprobe-probe -x DEMO -a wa"   -> walk (the functions -F lists for -x)
#   "kprobe-probe record --compression z" -> zlib, zstd
# usage: completion_test.sh COMPLETION_SCRIPT PROGRAM DEMO_PROGRAM
set -uo pipefail
script=$1 program=$2 demo=$3
failures=0

# Prints the replies for LINE, one a line, as bash would offer them after TAB.
complete_line() {
  bash --norc --noprofile -c '
    source "$1" || exit 2
    spec=$(complete -p kprobe-probe) || exit 3     # registered for the command
    function=${spec#*-F }; function=${function%% *}
    COMP_LINE=$2
    COMP_POINT=${#COMP_LINE}
    read -ra COMP_WORDS <<<"$COMP_LINE"
    [[ $COMP_LINE =~ [[:space:]]$ ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    "$function" kprobe-probe "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$1"
}

# expect LINE WHAT-THE-WORD-BECOMES...: the typed word (its part after the last
# ':' or '=', which bash replaces) must be completed to each of them.
expect() {
  local line=$1; shift
  local replies
  replies=$(complete_line "$line")
  local want
  for want in "$@"; do
    if ! grep -qxF -- "$want" <<<"$replies"; then
      echo "FAIL: '$line' + TAB does not offer '$want'; it offers: $(tr '\n' ' ' <<<"$replies")"
      failures=$((failures + 1))
    fi
  done
  echo "'$line' + TAB -> $(tr '\n' ' ' <<<"$replies")"
}

# The program named as a user types it: its directory first in PATH.
export PATH="$(dirname "$program"):$PATH"
# "--li" is --line, --list, --listen and --listen-name (export); "--list" is --list alone.
expect "kprobe-probe --li" --line --list --listen --listen-name
replies=$(complete_line "kprobe-probe --lis")
[ "$replies" = "$(printf -- '--list\n--listen\n--listen-name')" ] || { echo "FAIL: '--lis' + TAB offers '$replies', not --list, --listen and --listen-name"; failures=$((failures + 1)); }
expect "kprobe-probe --ver" --version
expect "kprobe-probe tr" trace
expect "kprobe-probe record --compression z" zlib zstd
expect "kprobe-probe -x $demo -a wa" walk
expect "kprobe-probe -x $demo ad" add

# Events: one of our own, from tracefs (needs root and uprobes).
tracefs=""
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
  [ -w "$d/uprobe_events" ] && { tracefs=$d; break; }
done
if [ -z "$tracefs" ]; then
  echo "SKIP (events part): no writable uprobe_events (needs root and tracefs)"
  [ $failures -eq 0 ] && exit 77 || exit 1
fi
group=kpptest_completion_$$
trap '"$program" -q -d "$group:*" >/dev/null 2>&1' EXIT
"$program" -q -x "$demo" --add "$group:walk_entry=walk" || { echo "FAIL: could not add the test's probe"; exit 1; }
expect "kprobe-probe trace -e $group:" walk_entry
expect "kprobe-probe trace -e kpptest_completion_$$" "$group:walk_entry" "$group:*"
expect "kprobe-probe -d $group:wa" walk_entry
expect "kprobe-probe --del=$group:" walk_entry

[ $failures -eq 0 ] && echo PASS || { echo "$failures failures"; exit 1; }
