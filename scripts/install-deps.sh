#!/usr/bin/env bash
# Installs every Debian 12 package that kprobe-probe's build and tests need.
# Idempotent: when everything is present it only checks, which takes well under a second.
set -euo pipefail

build_pkgs=(cmake g++ make pkg-config llvm-19-dev zlib1g-dev libzstd-dev libdeflate-dev
            libtracefs-dev libtraceevent-dev libtracecmd-dev libncurses-dev
            asciidoc-base xmlto docbook-xml docbook-xsl dpkg-dev libmicrohttpd-dev libcurl4-openssl-dev libdw-dev)
# asciidoc-base, xmlto and the DocBook DTD/stylesheets build the man page as perf's
# (validated); dpkg-dev's dpkg-shlibdeps gives the .deb's runtime dependencies;
# libmicrohttpd serves `export`'s metrics, libcurl fetches debug files from debuginfod; libdeflate
# inflates compressed debug sections twice as fast as zlib (dwarf/elf/inflated_image.cpp);
# elfutils' libdw (libdwfl) unwinds --stack's user stacks from .eh_frame (src/stack/dwarf_unwinder.cpp).
# llvm-19 has llvm-dwp (the split-DWARF .dwp fixtures); binutils has dwp.
test_pkgs=(libgtest-dev trace-cmd gdb clang libclang-rt-14-dev tmux python3 llvm-19 binutils
           qemu-system-x86 busybox-static cpio e2fsprogs kmod linux-perf time
           prometheus debuginfod libc6-dbg)

# SDT markers (tests/sdt): <sys/sdt.h> for the fixtures, and Debian binaries that ship markers
# (python3.11's with semaphores, libstdc++'s throw/catch). postgresql-15's are tested when it is there.
test_pkgs+=(systemtap-sdt-dev python3.11 python3.11-dbg libstdc++6-12-dbg)
# dwz compresses the fixtures' DWARF into partial units (tests/lto), one file alone and -m with
# a .gnu_debugaltlink supplementary file, as distributions' debug packages ship them.
test_pkgs+=(dwz)
# Go and Rust fixtures (tests/lang/lang_fixtures.cmake): Debian's Go 1.19 and rustc 1.63.
test_pkgs+=(golang-go rustc)
# The values oracle (tests/lang/values) reads Rust values with rustc's own gdb printers.
test_pkgs+=(rust-gdb)

want=("${build_pkgs[@]}")
[ "${1:-}" = "--tests" ] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: these packages are missing and installing them needs root: ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
