#!/usr/bin/env bash
# Fetches the Debian cloud kernel the guest tests boot, and its DWARF vmlinux, into a
# cache, then prints the cache directory.
#
#   fetch-kernel.sh            the version linux-image-cloud-amd64 depends on now
#   KPP_GUEST_KERNEL=6.1.0-57-cloud-amd64 fetch-kernel.sh     a pinned version
#   KPP_GUEST_CACHE=/some/dir  cache root (default /var/tmp/kprobe-probe-guest)
#   KPP_GUEST_SUITE=bookworm-backports fetch-kernel.sh   the cloud kernel of another suite
#                              of the same mirror (bookworm-backports: 6.12), through a
#                              private apt configuration (the machine's own is not changed)
#
# Cache layout, <root>/<version>/:
#   vmlinuz  config                       boot files of the image package
#   System.map                            the real one (from -dbg; the image has a stub)
#   modules/                              the image package's lib/modules/<version> tree
#   debug/vmlinux                         DWARF vmlinux (from the -dbg package)
#   debug/modules/loop.ko                 debug .ko of one small loadable module
#   debug-module                          path of that module inside modules/ (the .ko
#                                         the guest loads), e.g. kernel/drivers/block/loop.ko
#   VERSION                               package version, e.g. 6.1.192-3
#
# A version directory exists only when complete: everything is unpacked in a temporary
# directory next to it and renamed in one step, so an interrupted download leaves no
# half cache behind. A warm run does no network access and takes well under a second.
set -euo pipefail

cache_root=${KPP_GUEST_CACHE:-/var/tmp/kprobe-probe-guest}
# Another suite's kernels (and its private apt state) in a folder of their own, so the
# default's "newest cached version" never picks one of them.
[ -z "${KPP_GUEST_SUITE:-}" ] || cache_root=$cache_root/suite-$KPP_GUEST_SUITE
# The module whose debug .ko we keep for module-probe tests: small, loadable in a
# bare guest, and a module (not built in) in Debian's cloud config.
debug_module=${KPP_GUEST_DEBUG_MODULE:-loop}

die() { echo "fetch-kernel: $*" >&2; exit 1; }

# apt-get/apt-cache with the machine's configuration, or, for another suite, with a
# private one (private-apt.sh): its own source list, package lists and archive cache.
apt_opts=()
if [ -n "${KPP_GUEST_SUITE:-}" ]; then
  private_apt=$(dirname "${BASH_SOURCE[0]}")/private-apt.sh
  mapfile -t apt_opts < <("$private_apt" "$KPP_GUEST_SUITE" "$cache_root/apt") ||
    die "no private apt configuration for $KPP_GUEST_SUITE (see above)"
  [ ${#apt_opts[@]} -gt 0 ] || die "no private apt configuration for $KPP_GUEST_SUITE"
fi

# Which kernel: the package the meta package depends on in the local apt lists (no
# network); only when the lists do not know the meta package do we run apt-get update.
resolve_version() {
  local dep
  dep=$(apt-cache "${apt_opts[@]}" depends linux-image-cloud-amd64 2>/dev/null |
        sed -n 's/^ *Depends: linux-image-\(.*-cloud-amd64\)$/\1/p' | head -n1)
  printf '%s' "$dep"
}

# apt-cache takes about half a second to load its cache; remember its answer until the
# package lists change (apt-get update rewrites the lists directory).
lists_dir=/var/lib/apt/lists
[ -z "${KPP_GUEST_SUITE:-}" ] || lists_dir=$cache_root/apt/lists
lists_stamp() { stat -c %Y "$lists_dir" 2>/dev/null || echo none; }
resolved_file=$cache_root/resolved-version

if [ -n "${KPP_GUEST_KERNEL:-}" ]; then
  kver=$KPP_GUEST_KERNEL
elif [ -f "$resolved_file" ] && read -r stamp kver <"$resolved_file" &&
     [ "$stamp" = "$(lists_stamp)" ] && [ -n "$kver" ] && [ -d "$cache_root/$kver" ]; then
  :   # the lists did not change since we resolved and fetched this version
else
  kver=$(resolve_version)
  if [ -z "$kver" ]; then
    # Fresh machine without package lists. If a cache exists already, use the newest
    # one rather than touching the network.
    newest=$(ls -1d "$cache_root"/*-cloud-amd64 2>/dev/null | sort -V | tail -n1 || true)
    if [ -n "$newest" ]; then
      echo "$newest"
      exit 0
    fi
    echo "fetch-kernel: apt does not know linux-image-cloud-amd64; running apt-get update" >&2
    apt-get "${apt_opts[@]}" update -qq >&2 || die "apt-get update failed (is the Debian mirror reachable?)"
    kver=$(resolve_version)
    [ -n "$kver" ] || die "apt-cache finds no linux-image-*-cloud-amd64 that linux-image-cloud-amd64 depends on"
  fi
fi

dest=$cache_root/$kver
remember() {
  [ -n "${KPP_GUEST_KERNEL:-}" ] && return 0
  echo "$(lists_stamp) $kver" >"$resolved_file.$$" && mv -f "$resolved_file.$$" "$resolved_file" || true
}
if [ -d "$dest" ]; then
  remember
  echo "$dest"
  exit 0
fi

command -v dpkg-deb >/dev/null || die "dpkg-deb is missing"
mkdir -p "$cache_root" || die "cannot create the cache root $cache_root"
# Temp dirs of runs killed outright (no trap ran) would pile up 300 MB each; any
# older than two hours is not a download in progress.
find "$cache_root" -maxdepth 1 -name '.fetch-*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true
# Same file system as the destination, so the final mv is an atomic rename.
tmp=$(mktemp -d "$cache_root/.fetch-$kver.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# apt-get download drops to the _apt user when it can; let it write here.
chmod 0755 "$tmp"

image_pkg=linux-image-$kver
dbg_pkg=linux-image-$kver-dbg
echo "fetch-kernel: downloading $image_pkg and $dbg_pkg (about 310 MB) into $cache_root" >&2
# (As root apt-get would drop to the _apt user, which cannot write into our 0700
# temp dir; the sandbox buys nothing for a download we only unpack.)
(cd "$tmp" && apt-get "${apt_opts[@]}" download -q -o APT::Sandbox::User=root "$image_pkg" "$dbg_pkg" >&2) ||
  die "apt-get download $image_pkg $dbg_pkg failed (run apt-get update, check the mirror)"
image_deb=$(ls "$tmp"/linux-image-"$kver"_*.deb 2>/dev/null | head -n1)
dbg_deb=$(ls "$tmp"/linux-image-"$kver"-dbg_*.deb 2>/dev/null | head -n1)
[ -f "$image_deb" ] || die "apt-get download left no $image_pkg .deb in $tmp"
[ -f "$dbg_deb" ] || die "apt-get download left no $dbg_pkg .deb in $tmp"

out=$tmp/out
mkdir -p "$out/unpack-image" "$out/unpack-dbg" "$out/debug/modules"

# Image package: boot files and the module tree. Debian 12 ships modules under
# lib/modules (the usr-merged path is a symlink on the host, a real path in the .deb).
dpkg-deb --fsys-tarfile "$image_deb" |
  tar -x -C "$out/unpack-image" --wildcards './boot/*' './lib/modules/*' './usr/lib/modules/*' 2>/dev/null ||
  true   # tar complains about the patterns that match nothing; checked below
mv "$out/unpack-image/boot/vmlinuz-$kver" "$out/vmlinuz" || die "$image_pkg has no boot/vmlinuz-$kver"
mv "$out/unpack-image/boot/config-$kver" "$out/config" || die "$image_pkg has no boot/config-$kver"
if [ ! -d "$out/unpack-image/lib/modules/$kver" ] && [ -d "$out/unpack-image/usr/lib/modules/$kver" ]; then
  mkdir -p "$out/unpack-image/lib/modules"
  mv "$out/unpack-image/usr/lib/modules/$kver" "$out/unpack-image/lib/modules/"
fi
[ -d "$out/unpack-image/lib/modules/$kver/kernel" ] || die "$image_pkg has no lib/modules/$kver/kernel"
# modules.dep is not in the package (the postinst makes it); make it the same way.
command -v depmod >/dev/null || die "depmod is missing (install kmod)"
depmod -b "$out/unpack-image" "$kver" ||
  die "depmod failed on the modules of $image_pkg"
mv "$out/unpack-image/lib/modules/$kver" "$out/modules"
[ -f "$out/modules/modules.dep" ] || die "depmod made no modules.dep for $kver"

# Where the module lives in the tree (modules.dep lists every module by path).
mod_path=$(sed -n "s|^\(.*/$debug_module\.ko[^:]*\):.*|\1|p" "$out/modules/modules.dep" | head -n1)
[ -n "$mod_path" ] || die "$debug_module is not a module in $kver (modules.dep has no $debug_module.ko)"

# Debug package: only the vmlinux and the one module; the package holds the debug .ko
# of every module (1.7 GB unpacked), which no test needs.
dpkg-deb --fsys-tarfile "$dbg_deb" |
  tar -x -C "$out/unpack-dbg" --wildcards \
      "./usr/lib/debug/boot/vmlinux-$kver" "./usr/lib/debug/boot/System.map-$kver" \
      "./usr/lib/debug/lib/modules/$kver/$mod_path" \
      "./usr/lib/debug/lib/modules/$kver/${mod_path%.xz}" 2>/dev/null || true
mv "$out/unpack-dbg/usr/lib/debug/boot/vmlinux-$kver" "$out/debug/vmlinux" ||
  die "$dbg_pkg has no usr/lib/debug/boot/vmlinux-$kver"
# The image package's System.map is a one-line stub; the real one is in -dbg.
mv "$out/unpack-dbg/usr/lib/debug/boot/System.map-$kver" "$out/System.map" ||
  die "$dbg_pkg has no usr/lib/debug/boot/System.map-$kver"
dbg_ko=$(find "$out/unpack-dbg/usr/lib/debug/lib/modules" -name "$debug_module.ko*" 2>/dev/null | head -n1)
[ -n "$dbg_ko" ] || die "$dbg_pkg has no debug .ko for $mod_path"
# Kept unpacked (debug packages of newer kernels may compress it): readelf and the
# tool read it as it is.
case $dbg_ko in
  *.xz) xz -dc "$dbg_ko" >"$out/debug/modules/$debug_module.ko" || die "cannot unpack $dbg_ko" ;;
  *.zst) zstd -qdc "$dbg_ko" >"$out/debug/modules/$debug_module.ko" || die "cannot unpack $dbg_ko" ;;
  *) mv "$dbg_ko" "$out/debug/modules/" ;;
esac
echo "$mod_path" >"$out/debug-module"
dpkg-deb -f "$image_deb" Version >"$out/VERSION"
rm -rf "$out/unpack-image" "$out/unpack-dbg"

# Publish: one rename. If a concurrent run won the race, keep its copy.
mv -T "$out" "$dest" 2>/dev/null || [ -d "$dest" ] || die "cannot rename $out to $dest"
remember
echo "fetch-kernel: cached $kver in $dest" >&2
echo "$dest"
