#!/usr/bin/env bash
# Boots Debian's cloud kernel in qemu, runs one guest script there, and exits with
# that script's exit status. The host kernel has no kprobes; this guest has.
#
# usage: run-guest.sh [options] GUEST_SCRIPT [HOST_FILE...]
#   --kernel-debug      attach the cached DWARF vmlinux (and a module's debug .ko) as a
#                       disk, mounted read-only at /debug; sets KPP_VMLINUX,
#                       KPP_VMLINUX_BUILD_ID, KPP_DEBUG_MODULE_KO, KPP_MODULE_KO,
#                       KPP_DEBUG_MODULE_BUILD_ID
#   --disk-dir DIR      attach an ext4 image of DIR instead, mounted read-only at /debug
#   --env NAME=VALUE    export NAME=VALUE to the guest script (repeatable)
#   --timeout S         kill qemu after S seconds and fail (default 300)
#   --memory MB         guest memory (default 1024)
#   --expect-exit N     succeed only when the guest script exits N (harness self-test)
#   --host-check CMD    files the guest saved with kpp_save (guest-lib.sh) come back to the
#                       host in a directory DIR; once the guest script has exited 0, run
#                       CMD DIR on the host and exit with its status
#
# HOST_FILEs are copied to /kpp/files/<basename> in the guest, which is on PATH; an ELF
# executable or library takes along the shared libraries ldd lists and its ELF
# interpreter (at their host paths). A directory is copied as it is.
#
# In the guest the script runs as /guest.sh under busybox sh, as root, with /proc, /sys,
# /dev, /tmp (tmpfs, the working directory), tracefs at /sys/kernel/tracing and debugfs
# at /sys/kernel/debug mounted. /kpp/lib.sh has helpers (see guest-lib.sh). Guest
# output goes to stdout; the exit status travels back on the serial console as a line
# KPP-GUEST-EXIT=<n>. Saved files travel on a second virtio disk (serial kppout): /init
# writes /kpp/out as a tar archive onto it after the script, the host unpacks it.
#
# Exit status: the guest script's; 77 (CTest's skip) when the guest cannot be run at
# all here (no qemu, no kernel to fetch, qemu refuses to start), with the reason on
# stderr; 124 on timeout; 1 when the guest boots but the harness itself fails.
#
# Environment: KPP_GUEST_CACHE (cache root, shared with fetch-kernel.sh),
# KPP_GUEST_KERNEL (pin a kernel version), KPP_GUEST_QEMU (qemu binary),
# KPP_GUEST_SUITE (boot that suite's cloud kernel, e.g. bookworm-backports: 6.12),
# KPP_GUEST_CPU (qemu CPU model, default qemu64,-cx16),
# KPP_GUEST_ACCEL (qemu accelerator, default tcg), KPP_GUEST_BOOT_TIMEOUT (seconds
# allowed until the guest's /init runs, default 120; past it the run is a skip).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${KPP_GUEST_CACHE:-/var/tmp/kprobe-probe-guest}
qemu=${KPP_GUEST_QEMU:-qemu-system-x86_64}

skip() { echo "run-guest: SKIP: $*" >&2; exit 77; }
die() { echo "run-guest: FAIL: $*" >&2; exit 1; }
usage() { sed -n '5,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

timeout_s=300
memory_mb=1024
disk_dir=
kernel_debug=0
expect_exit=
host_check=
envs=()
while [ $# -gt 0 ]; do
  case $1 in
    --disk-dir) [ $# -ge 2 ] || usage; disk_dir=$2; shift 2 ;;
    --kernel-debug) kernel_debug=1; shift ;;
    --timeout) [ $# -ge 2 ] || usage; timeout_s=$2; shift 2 ;;
    --memory) [ $# -ge 2 ] || usage; memory_mb=$2; shift 2 ;;
    --expect-exit) [ $# -ge 2 ] || usage; expect_exit=$2; shift 2 ;;
    --host-check) [ $# -ge 2 ] || usage; host_check=$2; shift 2 ;;
    --env) [ $# -ge 2 ] || usage
           case $2 in [A-Za-z_]*=*) envs+=("$2") ;; *) die "--env wants NAME=VALUE, got '$2'" ;; esac
           shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "run-guest: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
guest_script=$1; shift
[ -f "$guest_script" ] || die "guest script $guest_script does not exist"
[ -z "$disk_dir" ] || [ -d "$disk_dir" ] || die "--disk-dir $disk_dir is not a directory"
[ "$kernel_debug" = 0 ] || [ -z "$disk_dir" ] || die "--kernel-debug and --disk-dir both want /debug; pick one"
[ -z "$host_check" ] || [ -x "$host_check" ] || die "--host-check $host_check is not an executable"
case $timeout_s in ''|*[!0-9]*) die "--timeout wants whole seconds, got '$timeout_s'" ;; esac

# --- What the host must have. Missing pieces make this a skip, not a failure: the
# --- guest suite is optional on machines without qemu or network.
command -v "$qemu" >/dev/null || skip "$qemu is not installed (apt-get install qemu-system-x86)"
busybox=
for b in /bin/busybox /usr/bin/busybox; do
  # Only a static busybox runs in a guest that has no libc.
  if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then busybox=$b; break; fi
done
[ -n "$busybox" ] || skip "no static busybox (apt-get install busybox-static)"
command -v cpio >/dev/null || skip "cpio is not installed"
if [ "$kernel_debug" = 1 ] || [ -n "$disk_dir" ]; then
  command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (apt-get install e2fsprogs)"
fi

kdir=$("$here/fetch-kernel.sh") || skip "no guest kernel: fetch-kernel.sh failed (see above)"
kver=$(basename "$kdir")
[ -f "$kdir/vmlinuz" ] || die "$kdir/vmlinuz is missing; remove $kdir and run again"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kpp-guest.XXXXXX")
qpid=
cleanup() {
  # The qemu of an interrupted run must not outlive us (timeout forwards the TERM).
  if [ -n "$qpid" ]; then kill "$qpid" 2>/dev/null || true; wait "$qpid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

root=$tmp/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,debug,boot,kpp/files,kpp/modules}
cp "$busybox" "$root/bin/busybox"
# The kernel's configuration where Debian installs it: kprobe-probe reads it (this
# kernel has no /proc/config.gz) to know whether notrace functions are refused.
cp "$kdir/config" "$root/boot/config-$kver"

# --- Modules: load in dependency order. modules.dep lists, for each module, all it
# --- depends on, most basic last (modprobe loads that list back to front).
declare -A mod_seen=()
mod_order=()
add_module() {   # $1: module name, e.g. virtio_blk
  local line path deps i
  # Built into this kernel (6.12 builds virtio_pci in): nothing to load.
  ! grep -Eq "(^|/)$1\.ko$" "$kdir/modules/modules.builtin" 2>/dev/null || return 0
  line=$(grep -E "(^|/)$1\.ko(\.[a-z]+)?:" "$kdir/modules/modules.dep" | head -n1) ||
    die "module $1 is not in $kdir/modules/modules.dep"
  path=${line%%:*}
  read -r -a deps <<<"${line#*:}"
  for ((i = ${#deps[@]} - 1; i >= 0; i--)); do add_path "${deps[i]}"; done
  add_path "$path"
}
add_path() {
  [ -z "${mod_seen[$1]:-}" ] || return 0
  mod_seen[$1]=1
  [ -f "$kdir/modules/$1" ] || die "module file $kdir/modules/$1 is missing"
  local name
  name=$(loaded_name "$1")
  case $1 in
    # busybox insmod takes plain ELF only; newer kernels ship .ko.xz (6.12) or .ko.zst.
    *.xz) xz -dc "$kdir/modules/$1" >"$root/kpp/modules/$name" || die "cannot unpack $1 (xz-utils?)" ;;
    *.zst) zstd -qdc "$kdir/modules/$1" >"$root/kpp/modules/$name" || die "cannot unpack $1 (zstd?)" ;;
    *) cp "$kdir/modules/$1" "$root/kpp/modules/" ;;
  esac
  mod_order+=("$name")
}
# The name a module file has in the guest: unpacked, so without .xz/.zst.
loaded_name() { local n; n=$(basename "$1"); n=${n%.xz}; echo "${n%.zst}"; }
# virtio_pci + virtio_blk bring the disk; they are modules in the cloud config.
if [ "$kernel_debug" = 1 ] || [ -n "$disk_dir" ] || [ -n "$host_check" ]; then
  add_module virtio_pci
  add_module virtio_blk
fi
printf '%s\n' "${mod_order[@]}" >"$root/kpp/modules.order"

# --- Environment for the guest script, single-quoted for busybox sh.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
  echo "export KPP_KERNEL_RELEASE=$(quote "$kver")"
  echo "export KPP_FILES=/kpp/files"
  for e in "${envs[@]}"; do echo "export ${e%%=*}=$(quote "${e#*=}")"; done
} >"$root/kpp/env"

# --- The disk: an ext4 image of the directory, cached, because writing 590 MB takes
# --- a while. Keyed by the directory's path and each file's name, size and mtime, so
# --- a new vmlinux makes a new image.
if [ "$kernel_debug" = 1 ]; then
  disk_dir=$kdir/debug
  command -v readelf >/dev/null || skip "readelf is not installed (apt-get install binutils)"
  build_id_of() { readelf -n "$1" | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p' | head -n1; }
  build_id=$(build_id_of "$disk_dir/vmlinux")
  [ -n "$build_id" ] || die "$disk_dir/vmlinux has no GNU build-id note"
  mod_rel=$(cat "$kdir/debug-module")
  mod_build_id=$(build_id_of "$disk_dir/modules/$(loaded_name "$mod_rel")")
  [ -n "$mod_build_id" ] || die "$disk_dir/modules/$(loaded_name "$mod_rel") has no GNU build-id note"
  add_path "$mod_rel"   # the loadable .ko that matches the debug one
  {
    echo "export KPP_VMLINUX=/debug/vmlinux"
    echo "export KPP_VMLINUX_BUILD_ID=$build_id"
    echo "export KPP_DEBUG_MODULE_KO=/debug/modules/$(loaded_name "$mod_rel")"
    echo "export KPP_DEBUG_MODULE_BUILD_ID=$mod_build_id"
    echo "export KPP_MODULE_KO=/kpp/modules/$(loaded_name "$mod_rel")"
  } >>"$root/kpp/env"
fi
disk_img=
if [ -n "$disk_dir" ]; then
  disk_dir=$(cd "$disk_dir" && pwd -P)
  key=$( { echo "$disk_dir"; cd "$disk_dir" && find . -printf '%p %s %T@ %y\n' | sort; } |
         sha256sum | cut -c1-16)
  mkdir -p "$cache_root/disks"
  # Named after the directory (e.g. 6.1.0-57-cloud-amd64-debug-<key>.ext4), so a
  # rebuild can drop the images made from older contents of the same directory.
  disk_name=$(printf '%s-%s' "$(basename "$(dirname "$disk_dir")")" "$(basename "$disk_dir")" | tr -c 'A-Za-z0-9._\n-' _)
  disk_img=$cache_root/disks/$disk_name-$key.ext4
  if [ ! -f "$disk_img" ]; then
    find "$cache_root/disks" -maxdepth 1 -name "$disk_name-????????????????.ext4" -delete 2>/dev/null || true
    bytes=$(du -sb "$disk_dir" | cut -f1)
    # Data plus 5% and 64 MB for ext4's own metadata.
    size_mb=$(( bytes / 1048576 * 105 / 100 + 64 ))
    echo "run-guest: building disk image of $disk_dir (${size_mb} MB), cached as $disk_img" >&2
    t0=$(date +%s.%N)
    part=$(mktemp "$cache_root/disks/.build.XXXXXX")
    # No journal: the guest mounts it read-only; fewer blocks to write.
    # Enough inodes for a directory of many small files, whatever the size.
    inodes=$(( $(find "$disk_dir" | wc -l) + 1024 ))
    if ! mkfs.ext4 -q -F -O ^has_journal -m 0 -N "$inodes" -L kppdebug -d "$disk_dir" "$part" "${size_mb}M" >&2; then
      rm -f "$part"; die "mkfs.ext4 -d $disk_dir failed"
    fi
    mv -f "$part" "$disk_img"
    chmod 0644 "$disk_img"
    echo "run-guest: disk image built in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2
  fi
  echo "export KPP_DEBUG=/debug" >>"$root/kpp/env"
fi
out_img=
if [ -n "$host_check" ]; then
  # Sparse: costs only what the guest writes.
  out_img=$tmp/out.img
  truncate -s 1G "$out_img"
  echo "export KPP_OUT_SERIAL=kppout" >>"$root/kpp/env"
fi

# --- Host files, with what an ELF program needs to run.
copy_to_root() {   # copy host path $1 to the same path inside the guest
  mkdir -p "$root$(dirname "$1")"
  [ -e "$root$1" ] || cp -L "$1" "$root$1" || die "cannot copy $1 into the initramfs"
}
lib_dirs=()
for f in "$@"; do
  [ -e "$f" ] || die "host file $f does not exist"
  name=$(basename "$f")
  [ ! -e "$root/kpp/files/$name" ] || die "two host files are named $name"
  if [ -d "$f" ]; then cp -a "$f" "$root/kpp/files/$name"; continue; fi
  cp -L "$f" "$root/kpp/files/$name"
  if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
    interp=$(readelf -l "$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
    [ -z "$interp" ] || copy_to_root "$interp"
    # ldd prints "name => /path (addr)" and "/path (addr)"; a static binary has none.
    while read -r lib; do
      copy_to_root "$lib"
      lib_dirs+=("$(dirname "$lib")")
    done < <(ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) (.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p')
  fi
done
if [ ${#lib_dirs[@]} -gt 0 ]; then
  # The guest has no ld.so.cache; say where the libraries are.
  echo "export LD_LIBRARY_PATH=$(printf '%s\n' "${lib_dirs[@]}" | sort -u | paste -sd:)" >>"$root/kpp/env"
fi

cp "$guest_script" "$root/guest.sh"
cp "$here/guest-lib.sh" "$root/kpp/lib.sh"

# --- /init: mount what a tracing test needs, load modules, mount the disk, run the
# --- script, report its status on the console, power off.
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/kpp/files:/bin:/sbin:/usr/bin:/usr/sbin
setup_failed() { echo "KPP-GUEST-SETUP-FAILED: $*"; echo "KPP-GUEST-EXIT=125"; sleep 1; poweroff -f; }
echo "KPP-GUEST-BOOTED $(uname -r)"
mount -t proc proc /proc || setup_failed "mount /proc"
mount -t sysfs sysfs /sys || setup_failed "mount /sys"
mount -t devtmpfs devtmpfs /dev || setup_failed "mount /dev"
mount -t tmpfs tmpfs /tmp || setup_failed "mount /tmp"
mount -t tracefs tracefs /sys/kernel/tracing || setup_failed "mount tracefs"
mount -t debugfs debugfs /sys/kernel/debug || setup_failed "mount debugfs"
# Kprobes stay breakpoints: the optimizer's live patching into jumps Oopsed
# 6.12 under TCG now and then with "int3" in code nobody probed (CI,
# 2026-12-02: ttwu_do_activate, workqueue kprobe_optimizer). The tests are
# about the probes, not the optimizer; a kernel without it has no knob.
[ -w /proc/sys/debug/kprobes-optimization ] && echo 0 >/proc/sys/debug/kprobes-optimization
. /kpp/env
for m in $(cat /kpp/modules.order); do
  insmod "/kpp/modules/$m" || setup_failed "insmod $m"
done
# The virtio disk with serial $1 (disks are told apart by serial, not by probe order).
disk_with_serial() {
  i=0
  while [ $i -lt 100 ]; do
    for b in /sys/block/vd*; do
      [ "$(cat "$b/serial" 2>/dev/null)" = "$1" ] && [ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
    done
    sleep 0.1; i=$((i + 1))   # virtio_blk probes asynchronously
  done
  return 1
}
if [ -n "${KPP_DEBUG:-}" ]; then
  dev=$(disk_with_serial kppdebug) || setup_failed "no virtio disk kppdebug after loading virtio_blk"
  mount -t ext4 -o ro,noload "$dev" /debug || setup_failed "mount $dev on /debug"
fi
mkdir -p /kpp/out
cd /tmp
sh /guest.sh
rc=$?
if [ -n "${KPP_OUT_SERIAL:-}" ]; then
  # Files saved with kpp_save go home as a tar archive on the raw disk.
  if ! dev=$(disk_with_serial "$KPP_OUT_SERIAL") || ! tar -cf "$dev" -C /kpp/out . || ! sync; then
    echo "KPP-GUEST-SAVE-FAILED"
  fi
fi
echo
echo "KPP-GUEST-EXIT=$rc"
# poweroff -f does not wait for the serial line to send what is queued: on
# a loaded host the status line was lost now and then ("ended without
# reporting an exit status"). A second lets the UART drain.
sleep 1
poweroff -f
INIT
chmod +x "$root/init" "$root/guest.sh"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet >"$tmp/initrd.cpio") ||
  die "cpio could not pack the initramfs"

# --- Boot. Software emulation by default: on the machines this was written on,
# --- /dev/kvm exists but KVM stops the guest with "emulation failure" (nested
# --- virtualization), which hangs qemu instead of failing. KPP_GUEST_ACCEL=kvm opts in.
accel=${KPP_GUEST_ACCEL:-tcg}
# qemu64 without cmpxchg16b: under TCG, 6.12's SLUB double-faults at random with the
# default model (qemu's cmpxchg16b emulation); without cx16 the kernel takes its
# fallback. Measured: 6 of 6 boots of 6.12 fine; 6.1 runs the same either way.
cpu=${KPP_GUEST_CPU:-qemu64,-cx16}
# One CPU: with two, arming a kprobe (int3 patched in, then an IPI to sync the
# other CPU) now and then never got its answer under TCG on a loaded host: a
# soft lockup in kprobe-probe's enable, an RCU stall naming the other CPU's
# timer, the case killed at its timeout (1 of 12 local runs of
# guest.kprobe_probe_vfs_read, 2026-12-02; CI's failure of stop 20). No case
# needs a second CPU; KPP_GUEST_SMP=2 brings it back.
smp=${KPP_GUEST_SMP:-1}
qemu_args=(-machine q35,accel=$accel -cpu "$cpu" -m "$memory_mb" -smp "$smp" -nodefaults -display none
           -no-reboot -serial stdio -monitor none
           -kernel "$kdir/vmlinuz" -initrd "$tmp/initrd.cpio"
           -append "console=ttyS0 quiet panic=-1 no_timer_check rdinit=/init")
[ -z "$disk_img" ] || qemu_args+=(-drive "file=$disk_img,format=raw,if=none,id=kppdebug,readonly=on"
                                  -device virtio-blk-pci,drive=kppdebug,serial=kppdebug)
[ -z "$out_img" ] || qemu_args+=(-drive "file=$out_img,format=raw,if=none,id=kppout"
                                 -device virtio-blk-pci,drive=kppout,serial=kppout)

log=$tmp/console.log
: >"$log"
t_start=$(date +%s)
timeout -k 5 "$timeout_s" "$qemu" "${qemu_args[@]}" </dev/null >"$log" 2>&1 &
qpid=$!
# Show the console as it comes, without the serial line's carriage returns.
tail -n +1 -s 0.1 -f --pid="$qpid" "$log" | tr -d '\r' &
tail_pid=$!
# Until the guest's /init speaks, watch for a boot that never comes (a broken
# accelerator, a kernel that hangs early): that is "cannot boot here", a skip, and
# it should not cost the whole timeout.
boot_timeout=${KPP_GUEST_BOOT_TIMEOUT:-120}
[ "$boot_timeout" -le "$timeout_s" ] || boot_timeout=$timeout_s
no_boot=0
while kill -0 "$qpid" 2>/dev/null && ! grep -q '^KPP-GUEST-BOOTED' "$log"; do
  if [ $(( $(date +%s) - t_start )) -ge "$boot_timeout" ]; then no_boot=1; kill "$qpid" 2>/dev/null || true; break; fi
  sleep 0.2
done
qrc=0
wait "$qpid" || qrc=$?
qpid=
wait "$tail_pid" 2>/dev/null || true
elapsed=$(( $(date +%s) - t_start ))

status=$(tr -d '\r' <"$log" | sed -n 's/^KPP-GUEST-EXIT=\([0-9]\{1,3\}\)$/\1/p' | tail -n1)
if [ "$no_boot" = 1 ] && [ "$boot_timeout" -ge "$timeout_s" ]; then
  echo "run-guest: FAIL: the guest did not even reach /init within the ${timeout_s} s timeout" >&2
  exit 124
fi
if [ "$no_boot" = 1 ]; then
  skip "the guest kernel did not reach /init within ${boot_timeout} s (accel=$accel): $(tr -d '\r' <"$log" | grep -v '^$' | tail -n 3 | paste -sd' ')"
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
  echo "run-guest: FAIL: the guest did not finish within ${timeout_s} s (qemu killed)" >&2
  exit 124
fi
if ! grep -q '^KPP-GUEST-BOOTED' "$log"; then
  # qemu refused to start or the kernel never reached /init: this host cannot run
  # the guest at all, which is a skip with qemu's own words as the reason.
  skip "the guest did not boot (qemu exit $qrc): $(tr -d '\r' <"$log" | grep -v '^$' | tail -n 3 | paste -sd' ')"
fi
if grep -q '^KPP-GUEST-SETUP-FAILED' "$log"; then
  die "guest setup failed: $(tr -d '\r' <"$log" | sed -n 's/^KPP-GUEST-SETUP-FAILED: //p' | head -n1)"
fi
[ -n "$status" ] || die "the guest ended without reporting an exit status (qemu exit $qrc after ${elapsed} s); did the script kill init or panic the kernel?"
echo "run-guest: guest script exited $status after ${elapsed} s" >&2
if [ -n "$host_check" ] && [ "$status" = 0 ]; then
  ! grep -q '^KPP-GUEST-SAVE-FAILED' "$log" || die "the guest could not write its saved files to the kppout disk"
  mkdir "$tmp/out"
  tar -xf "$out_img" -C "$tmp/out" || die "the kppout disk holds no tar archive"
  echo "run-guest: host check: $host_check $tmp/out ($(ls "$tmp/out" | paste -sd' '))" >&2
  hrc=0
  "$host_check" "$tmp/out" || hrc=$?
  echo "run-guest: host check exited $hrc" >&2
  exit "$hrc"
fi
if [ -n "$expect_exit" ]; then
  [ "$status" != 77 ] || [ "$expect_exit" = 77 ] || exit 77   # the script chose to skip
  [ "$status" = "$expect_exit" ] || die "expected the guest script to exit $expect_exit, it exited $status"
  exit 0
fi
exit "$status"
