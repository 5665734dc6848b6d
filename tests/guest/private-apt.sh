#!/usr/bin/env bash
# Prints, one per line, the apt-get/apt-cache options of a private apt configuration
# that reads one other suite of the machine's own Debian mirror, e.g.
#
#   private-apt.sh bookworm-backports /var/tmp/kprobe-probe-guest/apt-bookworm-backports
#
# The mirror is the one the machine's apt sources use for its own release (the
# codename in /etc/os-release); no host name is written here. The configuration's
# source list, package lists and archive cache live under DIR, so the machine's own
# apt state is never changed and `apt-get update` with these options only refreshes DIR.
set -euo pipefail

die() { echo "private-apt: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: private-apt.sh SUITE DIR"
suite=$1 dir=$2
case $suite in ''|*[!a-z0-9-]*) die "suite '$suite' is not a Debian suite name" ;; esac

codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "/etc/os-release names no VERSION_CODENAME"

# The first source of the machine's release: "URI<TAB>keyring" (keyring may be empty).
mirror_of_release() {
  local f
  # One-line style: deb [options] URI SUITE COMPONENTS...
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v want="$codename" '
      $1 == "deb" {
        i = 2; key = ""
        if ($2 ~ /^\[/) {
          for (; i <= NF; i++) {
            if ($i ~ /^\[?signed-by=/) { key = $i; sub(/^\[?signed-by=/, "", key); sub(/\]$/, "", key) }
            if ($i ~ /\]$/) { i++; break }
          }
        }
        if ($(i + 1) == want) { print $i "\t" key; exit }
      }' "$f"
  done
  # deb822 style: blocks of Types:/URIs:/Suites:/Signed-By: separated by blank lines.
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v want="$codename" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " want " ") && uri != "") { print uri "\t" key; found = 1 }
        types = suites = uri = key = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); if (found) exit; next }
      { line = $0; name = tolower($1) }
      name == "types:"     { sub(/^[^:]*:[ \t]*/, "", line); types = line }
      name == "uris:"      { uri = $2 }
      name == "suites:"    { sub(/^[^:]*:[ \t]*/, "", line); suites = line }
      name == "signed-by:" { key = $2 }
      END { if (!found) flush() }' "$f"
  done
}
source_line=$(mirror_of_release | head -n1)
[ -n "$source_line" ] || die "the machine's apt sources have no 'deb' source for $codename to take the mirror from"
uri=${source_line%%$'\t'*}
key=${source_line#*$'\t'}
[ -n "$key" ] || key=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$key" ] || die "keyring $key (of the $codename source) does not exist"

mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/sources.list.d"
# The lists are fetched by the _apt user when apt drops privileges.
chmod 0755 "$dir" "$dir/lists" "$dir/cache"
list=$dir/sources.list
echo "deb [signed-by=$key] $uri $suite main" >"$list.$$"
mv -f "$list.$$" "$list"

printf '%s\n' -o "Dir::Etc::SourceList=$list" -o "Dir::Etc::SourceParts=$dir/sources.list.d" \
              -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" \
              -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
