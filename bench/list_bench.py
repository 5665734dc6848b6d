#!/usr/bin/env python3
"""`kprobe-probe --list` with many probes defined: median wall time and peak RSS.

Run through bench/list_bench.sh. Defines N uprobes (default 200) in a group of
its own on instruction starts of a fixture program (several events share an
offset when it has fewer instructions than N), times `kprobe-probe --list GROUP:*`
(and `perf probe --list GROUP:*` when perf is installed) over several runs, and
removes the group again, also when a run fails or the bench is interrupted.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_compare import machine_line, run  # noqa: E402

TRACEFS = "/sys/kernel/tracing"


def instruction_offsets(program):
    """File offsets of the instruction starts of the program's own functions."""
    segments = []
    for line in subprocess.run(["readelf", "-lW", program], capture_output=True, text=True, check=True).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segments.append((int(f[2], 16), int(f[1], 16), int(f[4], 16)))  # vaddr, offset, filesz
    skip = re.compile(r"^(_start|_init|_fini|deregister_tm_clones|register_tm_clones|__do_global_dtors_aux|frame_dummy)$|@plt$")
    offsets, function = [], None
    for line in subprocess.run(["objdump", "-d", "--no-show-raw-insn", program], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            function = m.group(2)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+\S", line)
        if m and function and not skip.search(function):
            vaddr = int(m.group(1), 16)
            for seg_vaddr, seg_offset, size in segments:
                if seg_vaddr <= vaddr < seg_vaddr + size:
                    offsets.append(vaddr - seg_vaddr + seg_offset)
    return offsets


def timed(cmd, reps):
    walls, rss = [], []
    for _ in range(reps):
        wall, _, code, _ = run(cmd, stdout=subprocess.DEVNULL)
        walls.append(wall)
        if code != 0:
            sys.exit(f"list_bench: {' '.join(cmd)} failed with status {code}")
    for _ in range(2):
        rss.append(run(cmd, stdout=subprocess.DEVNULL, peak_rss=True)[1])
    return statistics.median(walls), int(statistics.median(rss))


def write_events(lines, ignore_errors=False):
    """Each line written on its own to uprobe_events (appending: other probes stay)."""
    fd = os.open(os.path.join(TRACEFS, "uprobe_events"), os.O_WRONLY | os.O_APPEND)
    try:
        for line in lines:
            try:
                os.write(fd, (line + "\n").encode())
            except OSError:
                if not ignore_errors:
                    raise
    finally:
        os.close(fd)


def remove_group(group, names):
    # An event that is not there (its definition failed) is skipped.
    write_events([f"-:{group}/{name}" for name in names], ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--probes", type=int, default=200)
    p.add_argument("--reps", type=int, default=11)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    ours = os.path.abspath(os.path.join(args.build, "src/cli/kprobe-probe"))
    program = os.path.realpath(os.path.join(args.build, "tests/e2e/fixtures/e2e_fixture_gcc_O2"))
    if not os.path.exists(program):
        sys.exit(f"list_bench: no fixture {program} (build the e2e tests: cmake --build {args.build} --target kpp_e2e_tests)")
    offsets = instruction_offsets(program)
    group = f"kppbench_list_{os.getpid()}"
    # SIGTERM and SIGHUP end the bench through the cleanup below, as Ctrl-C does.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(1))
    names = [f"e{i}" for i in range(args.probes)]
    try:
        write_events([f"p:{group}/{name} {program}:0x{offsets[i % len(offsets)]:x}" for i, name in enumerate(names)])
        rows = []
        listed = subprocess.run([ours, "--list", f"{group}:*"], capture_output=True, text=True).stdout.splitlines()
        if len(listed) != args.probes or not all(program in l for l in listed):
            sys.exit(f"list_bench: --list shows {len(listed)} lines on {program}, expected {args.probes}")
        wall, rss = timed([ours, "--list", f"{group}:*"], args.reps)
        rows.append(("kprobe-probe --list", wall, rss))
        if shutil.which("perf"):
            wall, rss = timed(["perf", "probe", "--list", f"{group}:*"], args.reps)
            rows.append(("perf probe --list", wall, rss))
        print(f"{machine_line()}; {args.probes} uprobes on {os.path.basename(program)} ({len(set(offsets))} distinct offsets); "
              f"medians of {args.reps} runs")
        if args.markdown:
            print("| command | wall | peak RSS |\n|---|---|---|")
        for label, wall, rss in rows:
            if args.markdown:
                print(f"| `{label}` | {wall * 1000:.1f} ms | {rss // 1024} MB |")
            else:
                print(f"{label:24} {wall * 1000:8.1f} ms {rss // 1024:6} MB")
    finally:
        remove_group(group, names)


if __name__ == "__main__":
    main()
