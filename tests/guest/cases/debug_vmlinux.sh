#!/bin/sh
# The DWARF vmlinux reaches the guest on the read-only /debug disk, and it is the
# running kernel's: its build-id (computed on the host with readelf -n, passed in as
# KPP_VMLINUX_BUILD_ID) equals the one in /sys/kernel/notes.
. /kpp/lib.sh
[ -n "${KPP_VMLINUX:-}" ] || kpp_fail "run-guest.sh did not set KPP_VMLINUX (run with --kernel-debug)"
[ -f "$KPP_VMLINUX" ] || kpp_fail "$KPP_VMLINUX is not visible in the guest"
size=$(stat -c %s "$KPP_VMLINUX")
[ "$size" -gt 100000000 ] || kpp_fail "$KPP_VMLINUX is only $size bytes; expected the full DWARF vmlinux"
# Reading the ELF header through the disk proves the data, not just the directory entry.
[ "$(dd if="$KPP_VMLINUX" bs=1 skip=1 count=3 2>/dev/null)" = ELF ] || kpp_fail "$KPP_VMLINUX is not an ELF file"
kpp_ok "$KPP_VMLINUX is visible ($size bytes)"

grep -q ' /debug .* ro[ ,]' /proc/mounts || grep -q ' /debug ext4 ro' /proc/mounts ||
  kpp_fail "/debug is not mounted read-only: $(grep /debug /proc/mounts)"

running=$(kpp_notes_build_id /sys/kernel/notes)
[ -n "$running" ] || kpp_fail "no GNU build-id in /sys/kernel/notes"
echo "running kernel build-id: $running"
echo "vmlinux build-id:        $KPP_VMLINUX_BUILD_ID"
[ "$running" = "$KPP_VMLINUX_BUILD_ID" ] || kpp_fail "the vmlinux on /debug is not the running kernel's"
kpp_ok "vmlinux build-id matches the running kernel"

[ -f "$KPP_DEBUG_MODULE_KO" ] || kpp_fail "debug module $KPP_DEBUG_MODULE_KO is not on /debug"
[ -f "$KPP_MODULE_KO" ] || kpp_fail "loadable module $KPP_MODULE_KO is not in the initramfs"
kpp_ok "module files present: $KPP_MODULE_KO (loadable), $KPP_DEBUG_MODULE_KO (debug)"

# The loadable module loads, and the debug .ko describes the very module loaded: the
# build-id the kernel keeps for it equals the one readelf found in the debug .ko.
mod=$(basename "$KPP_MODULE_KO" .ko)
insmod "$KPP_MODULE_KO" || kpp_fail "insmod $KPP_MODULE_KO failed"
[ -d "/sys/module/$mod" ] || kpp_fail "/sys/module/$mod missing after insmod"
loaded=$(kpp_notes_build_id "/sys/module/$mod/notes/.note.gnu.build-id")
echo "loaded $mod build-id: $loaded"
echo "debug .ko build-id:  $KPP_DEBUG_MODULE_BUILD_ID"
[ -n "$loaded" ] && [ "$loaded" = "$KPP_DEBUG_MODULE_BUILD_ID" ] ||
  kpp_fail "the debug .ko on /debug does not match the loaded $mod"
kpp_ok "$mod loads and its debug .ko matches"
rmmod "$mod" || kpp_fail "rmmod $mod failed"
