#!/usr/bin/env bash
# Prints the path of perf probe from another suite of the machine's own Debian mirror
# (default bookworm-backports: perf 6.12, for the 6.12 vmlinux), fetched once with a
# private apt configuration (tests/guest/private-apt.sh) and unpacked with dpkg -x into
# the guest cache: the installed perf is left as it is.
#
#   KPP_GUEST_SUITE=bookworm-backports fetch-suite-perf.sh
set -euo pipefail

suite=${KPP_GUEST_SUITE:-bookworm-backports}
root=${KPP_GUEST_CACHE:-/var/tmp/kprobe-probe-guest}/suite-$suite
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "fetch-suite-perf: $*" >&2; exit 1; }

mapfile -t apt_opts < <("$here/../guest/private-apt.sh" "$suite" "$root/apt")
[ ${#apt_opts[@]} -gt 0 ] || die "no private apt configuration for $suite"
version() { apt-cache "${apt_opts[@]}" show linux-perf 2>/dev/null | sed -n 's/^Version: //p' | head -n1; }
ver=$(version)
if [ -z "$ver" ]; then
  # Prefer a copy already unpacked over the network.
  have=$(ls -1d "$root"/perf-*/usr/bin/perf 2>/dev/null | sort -V | tail -n1 || true)
  [ -z "$have" ] || { echo "$have"; exit 0; }
  apt-get "${apt_opts[@]}" update -qq >&2 || die "apt-get update of $suite failed"
  ver=$(version)
  [ -n "$ver" ] || die "$suite has no linux-perf"
fi
dest=$root/perf-$ver
if [ ! -x "$dest/usr/bin/perf" ]; then
  mkdir -p "$root"
  tmp=$(mktemp -d "$root/.perf.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  chmod 0755 "$tmp"
  (cd "$tmp" && apt-get "${apt_opts[@]}" download -q -o APT::Sandbox::User=root linux-perf >&2) ||
    die "apt-get download linux-perf ($suite) failed"
  dpkg -x "$tmp"/linux-perf_*.deb "$tmp/x" || die "dpkg -x of linux-perf failed"
  mv -T "$tmp/x" "$dest" 2>/dev/null || [ -x "$dest/usr/bin/perf" ] || die "cannot rename into $dest"
fi
"$dest/usr/bin/perf" --version >/dev/null 2>&1 || die "$dest/usr/bin/perf does not run here (missing libraries?)"
echo "$dest/usr/bin/perf"
