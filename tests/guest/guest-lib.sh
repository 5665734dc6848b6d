# Helpers for guest scripts; run-guest.sh puts this file at /kpp/lib.sh in the guest.
# Use:  . /kpp/lib.sh
# It runs under busybox sh (no bash), as root, in the guest.

KPP_TRACING=/sys/kernel/tracing

# Stop the case with a message that says what a user would have noticed.
kpp_fail() { echo "FAIL: $*"; exit 1; }
# The guest cannot run this case (a kernel feature is missing): CTest shows a skip.
kpp_skip() { echo "SKIP: $*"; exit 77; }
kpp_ok() { echo "ok: $*"; }

# Send files back to the host (run-guest.sh --host-check): copied to /kpp/out, which
# /init writes onto the kppout disk after the script ends.
kpp_save() {   # $@: files
  [ -n "${KPP_OUT_SERIAL:-}" ] || kpp_fail "kpp_save needs run-guest.sh --host-check (no kppout disk)"
  cp "$@" /kpp/out/ || kpp_fail "cannot save $* for the host"
}

# A file's contents under a heading, for the log a failing case leaves.
kpp_show() { echo "--- $1:"; cat "$2"; }

# kpp_run NAME ARGS...: kprobe-probe ARGS, its output shown and kept in /tmp/NAME.out
# and /tmp/NAME.err, its exit status in $rc.
kpp_run() {
  kpp_run_name=$1
  shift
  kprobe-probe "$@" >/tmp/$kpp_run_name.out 2>/tmp/$kpp_run_name.err
  rc=$?
  kpp_show "$kpp_run_name stdout" /tmp/$kpp_run_name.out
  kpp_show "$kpp_run_name stderr" /tmp/$kpp_run_name.err
}

# Append one line to a tracefs control file; on refusal show the kernel's reason from
# error_log, which is where kprobe_events explains a rejected definition.
kpp_trace_write() {   # $1: line, $2: file under $KPP_TRACING
  if ! echo "$1" >>"$KPP_TRACING/$2"; then
    echo "tracefs refused '$1' in $2; error_log says:"
    cat "$KPP_TRACING/error_log" 2>/dev/null
    return 1
  fi
}

# Loads loop.ko ($KPP_MODULE_KO) and puts its debug .ko ($KPP_DEBUG_MODULE_KO)
# where Debian's -dbg package does, with the modules.dep line that names it,
# so that -m loop and --stack find it as they would on a real system.
kpp_load_loop_with_debug() {
  rel=$(uname -r)
  insmod "$KPP_MODULE_KO" || kpp_fail "insmod $KPP_MODULE_KO failed"
  mkdir -p "/lib/modules/$rel" "/usr/lib/debug/lib/modules/$rel/kernel/drivers/block"
  echo "kernel/drivers/block/loop.ko:" >"/lib/modules/$rel/modules.dep"
  ln -sf "$KPP_DEBUG_MODULE_KO" "/usr/lib/debug/lib/modules/$rel/kernel/drivers/block/loop.ko"
}

# Prints the GNU build-id (lower-case hex) found in a file of ELF notes, such as
# /sys/kernel/notes (the running kernel's notes); prints nothing when there is none.
# Note layout (little endian): namesz, descsz, type (u32 each), name, desc, each padded
# to 4 bytes. The build-id note has name "GNU\0" and type 3 (NT_GNU_BUILD_ID).
kpp_notes_build_id() {   # $1: notes file
  od -An -v -tx1 "$1" | tr -s ' \n' '\n\n' | grep . | awk '
    function hex(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
    function u32(i) { return hex(b[i + 3] b[i + 2] b[i + 1] b[i]) }
    function pad4(x) { return int((x + 3) / 4) * 4 }
    { b[n++] = $1 }
    END {
      i = 0
      while (i + 12 <= n) {
        ns = u32(i); ds = u32(i + 4); t = u32(i + 8)
        if (t == 3 && ns == 4 && b[i + 12] == "47" && b[i + 13] == "4e" && b[i + 14] == "55" && b[i + 15] == "00") {
          id = ""
          for (j = 0; j < ds; j++) id = id b[i + 12 + pad4(ns) + j]
          print id
          exit
        }
        i += 12 + pad4(ns) + pad4(ds)
      }
    }'
}

# For a case's exit trap: stop and remove the tracefs instances a killed
# 'kprobe-probe trace' would leave behind (an enabled event cannot be deleted).
kpp_remove_instances() {
  for i in "$KPP_TRACING"/instances/kprobe-probe-*; do
    [ -d "$i" ] || continue
    echo 0 >"$i/events/enable" 2>/dev/null
    rmdir "$i" 2>/dev/null
  done
}

# What every kprobe-probe case needs before it starts: kprobe_events, the
# DWARF vmlinux (--kernel-debug), and no kprobe defined yet, so that all a
# case finds later is its own.
kpp_require_kprobes_and_vmlinux() {
  [ -e "$KPP_TRACING/kprobe_events" ] || kpp_fail "the guest kernel has no $KPP_TRACING/kprobe_events"
  [ -n "$KPP_VMLINUX" ] && [ -r "$KPP_VMLINUX" ] || kpp_fail "no DWARF vmlinux (run with --kernel-debug)"
  [ -z "$(cat "$KPP_TRACING/kprobe_events")" ] ||
    kpp_fail "kprobe_events is not empty at start: $(cat "$KPP_TRACING/kprobe_events")"
}

# For a case's exit trap: our instances, then every kprobe and fprobe event (disabled
# first: an enabled event cannot be deleted). The guest runs only this case,
# so every kprobe in it is the case's own.
kpp_remove_all_kprobes() {
  kpp_remove_instances
  for e in $(sed -n 's/^[pr][0-9]*:\([^ ]*\) .*/\1/p' "$KPP_TRACING/kprobe_events" 2>/dev/null); do
    echo 0 >"$KPP_TRACING/events/$e/enable" 2>/dev/null
    echo "-:$e" >>"$KPP_TRACING/kprobe_events" 2>/dev/null
  done
  # fprobes (--fprobe) are listed in dynamic_events only.
  for e in $(sed -n 's/^f:\([^ ]*\) .*/\1/p' "$KPP_TRACING/dynamic_events" 2>/dev/null); do
    echo 0 >"$KPP_TRACING/events/$e/enable" 2>/dev/null
    echo "-:$e" >>"$KPP_TRACING/dynamic_events" 2>/dev/null
  done
}

# A case's exit trap that removes every kprobe (kpp_remove_all_kprobes) and keeps the
# case's exit status.
kpp_remove_all_kprobes_on_exit() {
  trap 'rc=$?; kpp_remove_all_kprobes; exit $rc' EXIT
}

# Waits until one of our instances has a hist trigger on $1 (GROUP/EVENT, a glob),
# at most ~60 s; fails (returns 1) after that.
kpp_wait_hist_trigger() {
  kpp_wait_i=0
  while [ $kpp_wait_i -lt 600 ]; do
    for f in "$KPP_TRACING"/instances/kprobe-probe-*/events/$1/trigger; do
      grep -q '^hist:' "$f" 2>/dev/null && return 0
    done
    sleep 0.1; kpp_wait_i=$((kpp_wait_i + 1))
  done
  return 1
}
