#!/bin/sh
# Our -D against perf probe -D (Debian linux-perf) on the cached guest vmlinux, offline,
# for specs across fs/, net/, kernel/ and mm/: function entries, returns, lines and member
# chains. Definitions are compared up to event naming (the part before the first space)
# and with perf's hex types for unsigned values (x32) read as ours (u32): both print the
# same bits. Multi-site specs compare as sorted sets of lines.
# Exit 0 when every spec perf resolves gives the same definitions; the figures are printed.
#
# KPP_GUEST_SUITE=bookworm-backports: the same on that suite's vmlinux (6.12) with that
# suite's perf (unpacked by fetch-suite-perf.sh, the installed perf is not replaced).
K=${1:?usage: perf_compare.sh KPROBE_PROBE}
cache=${KPP_GUEST_CACHE:-/var/tmp/kprobe-probe-guest}
perf=perf
if [ -n "${KPP_GUEST_SUITE:-}" ]; then
  cache=$cache/suite-$KPP_GUEST_SUITE
  perf=$("$(dirname "$0")/fetch-suite-perf.sh") || { echo "SKIP: no perf from $KPP_GUEST_SUITE (see above)"; exit 77; }
fi
DIR=$(ls -d "$cache"/*/debug 2>/dev/null | sort -V | tail -n1)
V=$DIR/vmlinux
[ -r "$V" ] || { echo "SKIP: no cached guest vmlinux in $cache (run tests/guest/fetch-kernel.sh)"; exit 77; }
command -v "$perf" >/dev/null || { echo "SKIP: no perf (scripts/install-deps.sh --tests installs linux-perf)"; exit 77; }
echo "perf_compare: $("$perf" --version) on $V"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perf leaves $retval unnamed and untyped (the kernel names it argN, type u64); we write
# argN=$retval:TYPE from the DWARF return type: compared as the bare $retval.
normalize() {  # definitions on stdin -> "p SYM+OFF ARGS" lines, sorted, x types as u
  sed -e 's/^\([pr][0-9]*\):[^ ]* /\1 /' -e 's/:x\(8\|16\|32\|64\)\b/:u\1/g' \
      -e 's/ arg[0-9]*=\$retval:[a-z0-9]*/ $retval/g' | sort
}

agree=0 known=0 differ=0 perf_only_fail=0 we_fail=0 both_fail=0
n=0
while IFS= read -r spec; do
  case $spec in ''|'#'*) continue ;; esac
  # "known: SPEC -- why": a difference we know and accept, counted apart.
  why=
  case $spec in known:*) why=${spec#* -- }; spec=${spec#known: }; spec=${spec% -- *} ;; esac
  n=$((n + 1))
  "$perf" probe -q -k "$V" -D "$spec" >"$tmp/perf" 2>"$tmp/perf.err"
  prc=$?
  # perf prints definitions only (one a line) with -q; anything else is an error.
  "$K" -q -k "$V" -D "$spec" >"$tmp/ours" 2>"$tmp/ours.err"
  orc=$?
  if [ $prc -ne 0 ] || [ ! -s "$tmp/perf" ]; then
    if [ $orc -eq 0 ]; then
      perf_only_fail=$((perf_only_fail + 1))
      echo "PERF FAILS, WE SUCCEED: $spec"
      echo "    perf: $(head -n2 "$tmp/perf.err" | tr '\n' ' ')"
      echo "    ours: $(cat "$tmp/ours" | tr '\n' ' ')"
    else
      both_fail=$((both_fail + 1))
      echo "BOTH FAIL: $spec"
    fi
    continue
  fi
  if [ $orc -ne 0 ]; then
    we_fail=$((we_fail + 1))
    echo "WE FAIL: $spec"
    echo "    perf: $(cat "$tmp/perf" | tr '\n' ' ')"
    echo "    ours: $(head -n3 "$tmp/ours.err" | tr '\n' ' ')"
    continue
  fi
  if [ "$(normalize <"$tmp/perf")" = "$(normalize <"$tmp/ours")" ]; then
    agree=$((agree + 1))
    echo "same: $spec -> $(normalize <"$tmp/ours" | tr '\n' ' ')"
  elif [ -n "$why" ]; then
    known=$((known + 1))
    echo "KNOWN DIFFERENCE: $spec ($why)"
    echo "    perf: $(normalize <"$tmp/perf" | tr '\n' ' ')"
    echo "    ours: $(normalize <"$tmp/ours" | tr '\n' ' ')"
  else
    differ=$((differ + 1))
    echo "DIFFER: $spec"
    echo "    perf: $(normalize <"$tmp/perf" | tr '\n' ' ')"
    echo "    ours: $(normalize <"$tmp/ours" | tr '\n' ' ')"
  fi
done <<'SPECS'
# fs/
vfs_read count
vfs_read%return $retval
vfs_write file->f_pos count
ksys_read fd count
do_sys_openat2 dfd filename:string
do_sys_openat2%return $retval
vfs_fsync_range start end datasync
filp_close filp->f_flags
known: vfs_open path->dentry->d_name.len -- perf adds vfs_open's inlined copies; a kernel function with a body gets no inline scan yet
vfs_statx flags
vfs_read:5
do_filp_open:3
# net/
tcp_sendmsg sk->__sk_common.skc_dport size
tcp_sendmsg%return $retval
tcp_v4_connect addr_len
tcp_recvmsg len flags
tcp_close timeout
udp_sendmsg len
inet_bind addr_len
tcp_set_state state
ip_rcv skb->len
tcp_v4_connect:10
# kernel/
do_exit code
wake_up_new_task p->pid
kernel_clone args->flags
kernel_clone%return $retval
try_to_wake_up p->pid state
set_user_nice p->pid nice
do_nanosleep mode
do_exit:8
# mm/
do_mmap len prot flags
handle_mm_fault address flags
vm_mmap_pgoff len
__vm_munmap start len
do_madvise start len_in behavior
filemap_read iocb->ki_pos
handle_mm_fault%return $retval
do_mmap:12
SPECS
echo
echo "perf_compare: $n specs; same: $agree; known differences: $known; differ: $differ; perf fails and we succeed: $perf_only_fail;" \
  "we fail where perf succeeds: $we_fail; both fail: $both_fail"
[ $differ -eq 0 ] && [ $we_fail -eq 0 ]
