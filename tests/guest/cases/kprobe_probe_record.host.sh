#!/usr/bin/env bash
# Host side of kprobe_probe_record: the guest's trace.dat, opened by the real reader.
# The truth is dd's own request: it read 7 bytes, so vfs_read saw count=7 from dd.
# usage: kprobe_probe_record.host.sh DIR   (DIR holds k.dat from the guest)
set -u
dat=$1/k.dat
[ -s "$dat" ] || { echo "FAIL: the guest sent no k.dat"; exit 1; }
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed on the host"; exit 77; }
report=$(trace-cmd report -i "$dat" 2>&1) || { echo "$report" | head -20; echo "FAIL: trace-cmd report refused the guest's trace.dat"; exit 1; }
echo "$report" | grep ' vfs_read: ' | head -5
# "  dd-97  [001]  6.351949: vfs_read:  (vfs_read+0x0/0x...) count=7"
if ! echo "$report" | grep -Eq '^ *dd-[0-9]+ +\[[0-9]+\] .*vfs_read: .*count=7$'; then
  echo "$report" | head -30
  echo "FAIL: trace-cmd report shows no vfs_read event from dd with count=7"
  exit 1
fi
echo "ok: trace-cmd report on the host shows dd's vfs_read with count=7"
