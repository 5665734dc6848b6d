#!/usr/bin/env python3
"""How the cost of a lookup grows: wall time and peak RSS against the size of the
debug information, and against the number of specs in one command.

Run through bench/growth.sh (it fetches the vmlinux). Targets, smallest first:
  small   the e2e fixture (a one-file C program, built by the test build)
  medium  a generated C program of 120 files (compiled here with gcc -O2 -g)
  large   kprobe-probe itself (C++, built by the build)
  vmlinux Debian's cloud vmlinux (the kernel the guest tests boot)
Each row: one function-entry probe, perf probe and ours (cold: --no-cache; warm:
the index cache built by an earlier run), medians of --reps runs, and ours per MB
of DWARF. Then 1, 10 and 100 function-entry specs on the vmlinux in one command,
with the cost of each spec beyond the first.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from binary_size import dwarf_size  # noqa: E402
from perf_compare import cache_envs, command, fmt_time, machine_line, measure, run, table  # noqa: E402


def build_program(directory, units, functions_per_unit):
    """A C program of `units` files, each with a struct and a few functions; returns its path."""
    os.makedirs(directory, exist_ok=True)
    sources = []
    for u in range(units):
        path = os.path.join(directory, f"unit{u}.c")
        with open(path, "w") as f:
            f.write("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n")
            f.write(f"struct rec{u} {{ int id; long total; const char *name; struct rec{u} *next; }};\n")
            f.write("static inline long mix(long a, long b) { return a * 31 + b; }\n")
            for i in range(functions_per_unit):
                f.write(f"long f{u}_{i}(struct rec{u} *r, long n) {{\n  long t = 0;\n"
                        f"  for (; r; r = r->next) t = mix(t, r->id + n + {i});\n"
                        f"  return t + (long)strlen(r ? r->name : \"\");\n}}\n")
            if u == 0:
                f.write("int main(int argc, char **argv) { struct rec0 r = {argc, 0, argv[0], 0};"
                        " return (int)f0_0(&r, argc); }\n")
        sources.append(path)
    exe = os.path.join(directory, "prog")
    subprocess.run(["gcc", "-g", "-O2", "-o", exe] + sources, check=True)
    return exe


def measured(ours, target, specs, reps, env_warm, env_cold, perf_reps=None):
    """(perf wall, perf RSS, perf ok, cold wall, cold RSS, warm wall, warm RSS)."""
    pw, pm, pc, _ = measure(command("perf", target, "D", specs), perf_reps or reps)
    cw, cm, cc, _ = measure(command(ours, target, "D", specs, ["--no-cache"]), reps, env_cold)
    run(command(ours, target, "D", specs), env_warm)  # builds the index when missing
    ww, wm, wc, _ = measure(command(ours, target, "D", specs), reps, env_warm)
    if cc != 0 or wc != 0:
        sys.exit(f"growth: kprobe-probe failed on {target} {specs[:3]}...")
    return pw, pm, pc == 0, cw, cm, ww, wm


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--vmlinux", required=True)
    p.add_argument("--build", default="build")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    ours = os.path.abspath(os.path.join(args.build, "src/cli/kprobe-probe"))
    small = os.path.abspath(os.path.join(args.build, "tests/e2e/fixtures/e2e_fixture_gcc_O2"))
    for path in (ours, small):
        if not os.path.exists(path):
            sys.exit(f"growth: {path} is missing (build kprobe-probe and kpp_e2e_tests)")
    if not shutil.which("perf"):
        sys.exit("growth: perf is not installed (scripts/install-deps.sh --tests)")
    work = tempfile.mkdtemp(prefix="kpp-growth-")
    try:
        env_warm, env_cold = cache_envs(work)
        print(f"{machine_line()}; medians of {args.reps} runs (perf: one run for 100 specs)")
        # A copy of kprobe-probe, so that rebuilding it does not change the target under the bench.
        large = os.path.join(work, "kprobe-probe-target")
        shutil.copy(ours, large)
        medium = build_program(os.path.join(work, "medium"), 120, 8)
        targets = [("small: e2e fixture", ["-x", small], "scale"),
                   ("medium: 120-file C program", ["-x", medium], "f60_3 n"),
                   ("large: kprobe-probe (C++)", ["-x", large], "path_ends_with"),
                   ("vmlinux", ["-k", args.vmlinux], "vfs_read count")]
        rows = []
        for name, target, spec in targets:
            mb = dwarf_size(target[1]) / 1048576
            pw, pm, pok, cw, cm, ww, wm = measured(ours, target, [spec], args.reps, env_warm, env_cold)
            rows.append([name, f"{mb:.1f}", spec, fmt_time(pw) + ("" if pok else " (fails)"), fmt_time(cw), fmt_time(ww),
                         f"{cw * 1000 / mb:.2f}", f"{pm // 1024}", f"{cm // 1024}", f"{wm // 1024}"])
        print(table(rows, ["target", "DWARF MB", "spec", "perf", "ours cold", "ours warm", "cold ms/MB",
                           "perf MB", "cold MB", "warm MB"], args.markdown))

        # Specs per command: entries of distinct functions of the vmlinux.
        system_map = os.path.join(os.path.dirname(os.path.dirname(args.vmlinux)), "System.map")
        names = sorted({l.split()[2] for l in open(system_map)
                        if re.match(r"^\S+ T (vfs_|ksys_|do_sys_|tcp_v4_|ext4_file)", l) and "." not in l.split()[2]})
        rows, first = [], None
        for n in (1, 10, 100):
            specs = names[:n]
            target = ["-k", args.vmlinux]
            # perf takes minutes for 100 specs (its cost per spec grows): one run of it there.
            pw, pm, pok, cw, cm, ww, wm = measured(ours, target, specs, args.reps, env_warm, env_cold,
                                                   perf_reps=1 if n == 100 else args.reps)
            first = first or (pw, cw, ww)
            per = lambda w, w1: "-" if n == 1 else f"{(w - w1) * 1000 / (n - 1):.1f}"
            rows.append([str(len(specs)), fmt_time(pw) + ("" if pok else " (fails)"), fmt_time(cw), fmt_time(ww),
                         per(pw, first[0]), per(cw, first[1]), per(ww, first[2]),
                         f"{pm // 1024}", f"{cm // 1024}", f"{wm // 1024}"])
        print()
        print(table(rows, ["specs (vmlinux entries)", "perf", "ours cold", "ours warm", "perf ms/extra spec",
                           "cold ms/extra spec", "warm ms/extra spec", "perf MB", "cold MB", "warm MB"], args.markdown))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
