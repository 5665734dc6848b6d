#!/usr/bin/env python3
"""kprobe-probe vs perf probe: wall time and peak RSS, medians of several runs.

Run through bench/perf_compare.sh (it fetches the vmlinux). Each measurement is
one process: wall time from a monotonic clock around fork..wait, peak RSS as
/usr/bin/time reports it. (Not this script's own wait4: a child's ru_maxrss
includes the memory of the process that exec'd it, Python's ~14 MB, which
hid every figure below that.) Ours is measured cold (--no-cache: nothing
but the ELF/DWARF file) and warm (the cache files an earlier run wrote).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# (label, what, arguments after the target option). what: D = -D spec, V, L, F.
SPECS = [
    ("entry vfs_read count", "D", ["vfs_read count"]),
    ("entry vfs_write file count", "D", ["vfs_write file count"]),
    ("entry do_sys_openat2 dfd", "D", ["do_sys_openat2 dfd"]),
    ("entry ksys_read fd count", "D", ["ksys_read fd count"]),
    ("entry tcp_sendmsg size", "D", ["tcp_sendmsg size"]),
    ("entry do_exit code", "D", ["do_exit code"]),
    ("entry vfs_open", "D", ["vfs_open"]),
    ("return vfs_read (bare)", "D", ["vfs_read%return"]),
    ("return vfs_read", "D", ["vfs_read%return $retval"]),
    ("return do_sys_openat2", "D", ["do_sys_openat2%return $retval"]),
    ("return tcp_sendmsg", "D", ["tcp_sendmsg%return $retval"]),
    ("member file->f_pos", "D", ["vfs_read file->f_pos"]),
    ("member how->flags how->mode", "D", ["do_sys_openat2 how->flags how->mode"]),
    ("member sk->__sk_common.skc_dport", "D", ["tcp_sendmsg sk->__sk_common.skc_dport"]),
    ("member file->f_path.dentry", "D", ["vfs_write file->f_path.dentry"]),
    ("line vfs_read:11", "D", ["vfs_read:11"]),
    ("line vfs_read:12 count", "D", ["vfs_read:12 count"]),
    ("line ksys_read:4", "D", ["ksys_read:4"]),
    ("line do_sys_openat2:11", "D", ["do_sys_openat2:11"]),
    ("file line fs/read_write.c:470", "D", ["fs/read_write.c:470"]),
    ("inlined fsnotify_access", "D", ["fsnotify_access"]),
    ("header line fsnotify.h:266", "D", ["include/linux/fsnotify.h:266"]),
    ("-V vfs_read", "V", ["vfs_read"]),
    ("-V vfs_read:12", "V", ["vfs_read:12"]),
    ("-L vfs_read", "L", ["vfs_read"]),
    ("-F", "F", []),
]


TIME = "/usr/bin/time"


def run(cmd, env=None, stdout=None, peak_rss=False):
    """(wall seconds, peak RSS KB, exit code, stdout). With `peak_rss` the
    command runs under /usr/bin/time, a small process, so that its peak RSS
    is its own (the wall time then includes time's fork and exec)."""
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile(mode="r") as rss:
        wrapped = [TIME, "-f", "%M", "-o", rss.name] + list(cmd) if peak_rss and os.path.exists(TIME) else list(cmd)
        start = time.monotonic()
        proc = subprocess.Popen(wrapped, stdout=stdout if stdout is not None else out, stderr=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode(errors="replace")
        # time exits with the command's status; its last line is the figure.
        lines = rss.read().split()
        peak = int(lines[-1]) if wrapped[0] == TIME and lines and lines[-1].isdigit() else usage.ru_maxrss
    return wall, peak, proc.returncode, text


def command(tool, target, what, args, extra=()):
    cmd = [tool] if tool != "perf" else ["perf", "probe"]
    cmd += list(target) + list(extra)
    if what == "F":
        return cmd + ["-F"]
    for a in args:
        cmd += ["-" + what, a]
    return cmd


def measure(cmd, reps, env=None, rss=True):
    """Median wall time of `reps` runs, median peak RSS of two more under
    /usr/bin/time (0 without `rss`)."""
    walls, codes, text = [], [], ""
    for _ in range(reps):
        w, _, c, t = run(cmd, env)
        walls.append(w)
        codes.append(c)
        text = t
    peaks = [run(cmd, env, peak_rss=True)[1] for _ in range(2 if rss else 0)]
    return statistics.median(walls), int(statistics.median(peaks or [0])), codes[-1], text


def definitions(text):
    """The probe definitions in -D output, without event names, argument names or
    types: (kind, location, fetches...) for each line, as a sorted list."""
    found = []
    for line in text.splitlines():
        m = re.match(r"^([pr])(?::\S+)?\s+(\S+)(.*)$", line.strip())
        if not m:
            continue
        fetches = []
        for arg in m.group(3).split():
            fetch = arg.split("=", 1)[1] if "=" in arg and not arg.startswith("$") else arg
            fetches.append(re.sub(r":[a-z]+\d*$|:string$", "", fetch))
        found.append((m.group(1), m.group(2).replace("+0", ""), tuple(fetches)))
    return sorted(found)


def fmt_time(s):
    return f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s"


def ratio(a, b):
    return f"{a / b:.3f}" if b else "-"


def table(rows, headers, markdown):
    if markdown:
        out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
        out = ["  ".join(str(x).ljust(w) for x, w in zip(headers, widths))]
        out += ["  ".join(str(x).ljust(w) for x, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def compare(args, ours, env_warm, env_cold):
    target = ["-k", args.vmlinux]
    rows, medians = [], []
    for label, what, spec_args in SPECS:
        if args.only and not re.search(args.only, label):
            continue
        pw, pm, pc, ptext = measure(command("perf", target, what, spec_args), args.reps)
        cw, cm, cc, ctext = measure(command(ours, target, what, spec_args, ["--no-cache"]), args.reps, env_cold)
        run(command(ours, target, what, spec_args), env_warm)  # builds the index when missing
        ww, wm, wc, wtext = measure(command(ours, target, what, spec_args), args.reps, env_warm)
        if what == "D" and pc == 0:
            same = "same" if definitions(ptext) == definitions(ctext) == definitions(wtext) else "DIFFER"
            if same == "DIFFER" and args.verbose:
                print(f"{label}:\n perf: {definitions(ptext)}\n ours: {definitions(ctext)}\n warm: {definitions(wtext)}",
                      file=sys.stderr)
        elif what == "D":
            same = "perf fails"
        else:
            same = "-" if pc == 0 else "perf fails"
        if cc != 0 or wc != 0:
            same += f" (ours exit {cc}/{wc})"
        rows.append([label, fmt_time(pw), fmt_time(cw), fmt_time(ww), ratio(cw, pw), ratio(ww, pw),
                     f"{pm // 1024}", f"{cm // 1024}", f"{wm // 1024}", ratio(cm, pm), same])
        medians.append((cw / pw, ww / pw, cm / pm))
        print(f"  {label}: perf {fmt_time(pw)} ours {fmt_time(cw)}/{fmt_time(ww)}", file=sys.stderr)
    headers = ["spec", "perf", "ours cold", "ours warm", "cold/perf", "warm/perf",
               "perf MB", "cold MB", "warm MB", "RSS cold/perf", "definitions"]
    print(table(rows, headers, args.markdown))
    if medians:
        print(f"\nmedian ratios: cold/perf {statistics.median(m[0] for m in medians):.3f}, "
              f"warm/perf {statistics.median(m[1] for m in medians):.3f}, "
              f"RSS cold/perf {statistics.median(m[2] for m in medians):.3f}")


def machine_line():
    """Date, CPU model, CPU count and load average: what the figures were measured on."""
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    return f"{time.strftime('%Y-%m-%d')}, {cpu}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"


def cache_envs(work):
    """Environments for warm runs (an index cache inside `work`) and cold ones (a cache directory never used)."""
    return (dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache")),
            dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "unused-cache")))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--vmlinux", required=True)
    p.add_argument("--build", default="build")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--only")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    ours = os.path.abspath(os.path.join(args.build, "src/cli/kprobe-probe"))
    if not shutil.which("perf"):
        sys.exit("perf_compare: perf is not installed (scripts/install-deps.sh --tests)")
    work = tempfile.mkdtemp(prefix="kpp-bench-")
    try:
        env_warm, env_cold = cache_envs(work)
        print(f"{machine_line()}; {os.path.basename(args.vmlinux)} {os.path.getsize(args.vmlinux) // 1048576} MB; "
              f"medians of {args.reps} runs")
        compare(args, ours, env_warm, env_cold)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
