#!/usr/bin/env bash
# The Debian package: built by cpack from this build (the program stripped as a
# Release install strips it), its dependencies as dpkg-shlibdeps found them
# and each library the program loads covered by one; installed with apt-get,
# `kprobe-probe demo` run from /usr/bin without a terminal, then the package
# purged, so the machine is left as it was.
# usage: deb_test.sh BUILD_DIR VERSION
set -uo pipefail
build=$1 version=$2
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || { echo "SKIP: installing a package needs root"; exit 77; }
for tool in cpack dpkg-deb dpkg-shlibdeps apt-get; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed (scripts/install-deps.sh)"; exit 77; }
done
if dpkg-query -W -f='${Status}' kprobe-probe 2>/dev/null | grep -q 'ok installed'; then
  echo "SKIP: a kprobe-probe package is installed already (not by this test): left alone"
  exit 77
fi
[ -e /usr/bin/kprobe-probe ] && { echo "SKIP: /usr/bin/kprobe-probe exists, not from a package: left alone"; exit 77; }

work=$(mktemp -d /tmp/kpptest_deb_$$_XXXX)
installed=0
cleanup() {
  if [ $installed -eq 1 ]; then
    apt-get purge -y -qq -o DPkg::Lock::Timeout=300 kprobe-probe >/dev/null 2>&1 ||
      echo "WARNING: could not purge kprobe-probe: apt-get purge kprobe-probe"
  fi
  if [ -n "${pulled_in-}" ]; then
    # shellcheck disable=SC2086
    apt-get purge -y -qq -o DPkg::Lock::Timeout=300 $pulled_in >/dev/null 2>&1 ||
      echo "WARNING: could not remove what the package pulled in:$pulled_in"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

start=$(date +%s.%N)
(cd "$build" && cpack -G DEB -C Release -B "$work" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/kprobe-probe_"$version"_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$work/cpack.log"; fail "cpack made no kprobe-probe_${version}_*.deb"; }
echo "built $(basename "$deb"): $(stat -c %s "$deb") bytes in $(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo '?') s"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
depended=$(tr ',' '\n' <<<"$depends" | awk '{print $1}')  # the package names alone
# The libraries loaded only when a command needs them (dlopen: not NEEDED, so
# shlibdeps cannot see them) are recommended.
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "Recommends: $recommends"
for lib in libcurl4 libmicrohttpd12; do
  tr ',' '\n' <<<"$recommends" | awk '{print $1}' | grep -qxF "$lib" || fail "Recommends does not name $lib"
done
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/kprobe-probe ./usr/libexec/kprobe-probe/kpp_demo ./usr/share/man/man1/kprobe-probe.1.gz \
         ./usr/share/bash-completion/completions/kprobe-probe; do
  grep -qxF "$f" <<<"$files" || fail "$f is not in the package"
done

# Each shared library the program and the demo link directly (NEEDED) is some
# package's, and that package is a dependency (the check dpkg-shlibdeps should
# have done). What those libraries load in turn (libmicrohttpd's gnutls) is
# their own packages' dependency, not ours.
dpkg-deb -x "$deb" "$work/root"
for elf in "$work/root/usr/bin/kprobe-probe" "$work/root/usr/libexec/kprobe-probe/kpp_demo"; do
  readelf -S -W "$elf" >/dev/null || fail "$elf is not an ELF file"
  needed=$(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
  for lib in $(ldd "$elf" | awk -v want="$(echo $needed)" 'BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) need[w[i]] = 1 }
                                                          $2 == "=>" && ($1 in need) && $3 ~ /^\// { print $3 }'); do
    owner=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) ||
      owner=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1)
    [ -n "$owner" ] || fail "$lib (needed by $(basename "$elf")) belongs to no package"
    grep -qxF "$owner" <<<"$depended" || fail "$lib is $owner's, which Depends does not name"
  done
done
readelf -S -W "$work/root/usr/bin/kprobe-probe" | grep -q ' \.debug_info ' && fail "/usr/bin/kprobe-probe is not stripped"

# Dependencies apt would bring in are removed again with the package, so the
# machine is left as it was (on a build machine they are all there already).
pulled_in=""
for dep in $depended; do
  dpkg-query -W -f='${Status}' "$dep" 2>/dev/null | grep -q 'ok installed' || pulled_in+=" $dep"
done
[ -n "$pulled_in" ] && echo "apt-get will install:$pulled_in (removed again at the end)"
phase=$(date +%s)
apt-get install -y -qq -o DPkg::Lock::Timeout=300 "$deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install $deb failed"; }
installed=1
echo "apt-get install: $(($(date +%s) - phase)) s"
[ "$(command -v kprobe-probe)" = /usr/bin/kprobe-probe ] || fail "kprobe-probe is not /usr/bin/kprobe-probe"
[ "$(/usr/bin/kprobe-probe --version)" = "kprobe-probe $version" ] || fail "--version: $(/usr/bin/kprobe-probe --version)"

# The demo, without a terminal: lines, and a count per probe.
out=$(cd / && /usr/bin/kprobe-probe demo </dev/null 2>&1 | cat)
rc=$?
echo "$out" | head -20
[ $rc -eq 0 ] || fail "kprobe-probe demo exited $rc"
grep -q '/usr/libexec/kprobe-probe/kpp_demo' <<<"$out" || fail "the demo did not probe the installed kpp_demo"
grep -q 'walk_L5: name="one" i=0 s=0' <<<"$out" || fail "the demo's first walk line is missing"
grep -q 'hits per probe' <<<"$out" || fail "the demo printed no counts"
grep -q 'probe_kpp_demo' /sys/kernel/tracing/uprobe_events 2>/dev/null && fail "the demo left its probes"

phase=$(date +%s)
apt-get purge -y -qq -o DPkg::Lock::Timeout=300 kprobe-probe >/dev/null 2>&1 || fail "apt-get purge kprobe-probe failed"
echo "apt-get purge: $(($(date +%s) - phase)) s"
installed=0
[ -e /usr/bin/kprobe-probe ] && fail "/usr/bin/kprobe-probe is still there after the purge"
dpkg-query -W -f='${Status}' kprobe-probe 2>/dev/null | grep -q 'ok installed' && fail "the package is still installed"
echo PASS
