#!/bin/sh
# --add needs the kernel debug file's build-id to be the running kernel's: a
# vmlinux-shaped file (linux_banner, DWARF) without a build-id note is refused
# with that reason before anything is written (issue 30), unless -f; -D reads
# it offline as any vmlinux. The check runs before the kernel is asked for
# anything, so no kprobes are needed.
K=${1:?usage: build_id_required.sh KPROBE_PROBE}
fail() { echo "FAIL: $*"; exit 1; }
running=$(od -An -v -tx1 /sys/kernel/notes 2>/dev/null | tr -d ' \n')
[ -n "$running" ] || { echo "SKIP: /sys/kernel/notes cannot be read: no running build-id to check against"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no gcc to build the fixture"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/vmlinux.c" <<'C'
const char linux_banner[] = "Linux version 0.0.0-kpp-test (no build-id)";
__attribute__((noinline)) int vfs_read(int fd, int count) { return fd + count; }
int main(void) { return vfs_read(0, 1); }
C
gcc -g -O1 -Wl,--build-id=none -o "$work/vmlinux" "$work/vmlinux.c" || fail "gcc"
readelf -n "$work/vmlinux" | grep -q 'Build ID' && fail "the fixture has a build-id"
gcc -g -O1 -Wl,--build-id -o "$work/vmlinux.other" "$work/vmlinux.c" || fail "gcc"

# Offline, any vmlinux is read.
"$K" -k "$work/vmlinux" -D vfs_read >"$work/out" 2>"$work/err" || fail "-D on the fixture: $(cat "$work/err")"
grep -q '^p:probe/vfs_read ' "$work/out" || fail "-D on the fixture printed: $(cat "$work/out")"
echo "ok: -D reads the fixture offline: $(cat "$work/out")"

# --add: refused, with the reason, and nothing else tried.
"$K" -k "$work/vmlinux" -n --add vfs_read >"$work/out" 2>"$work/err" && fail "--add without a build-id was accepted"
grep -q "has no build-id: it cannot be checked against the running kernel (build-id [0-9a-f]*)" "$work/err" ||
  fail "the refusal does not say why: $(cat "$work/err")"
grep -q -- "-f to use it anyway" "$work/err" || fail "the refusal gives no way out: $(cat "$work/err")"
echo "ok: --add refused: $(head -1 "$work/err")"

# Another kernel's build-id: the mismatch message (the control).
"$K" -k "$work/vmlinux.other" -n --add vfs_read >"$work/out" 2>"$work/err" && fail "--add with another build-id was accepted"
grep -q "does not match the running kernel" "$work/err" || fail "no mismatch message: $(cat "$work/err")"
echo "ok: another build-id: $(head -1 "$work/err")"

# -f: the build-id check is passed (what follows may still fail on this machine).
"$K" -k "$work/vmlinux" -f -n --add vfs_read >"$work/out" 2>"$work/err"
grep -q "has no build-id" "$work/err" && fail "-f still refused it: $(cat "$work/err")"
echo "ok: -f passes the check"
echo PASS
