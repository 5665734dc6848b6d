#!/usr/bin/env python3
"""perf probe beside kprobe-probe on the corpus: for every (probe, variable)
of the oracle's list, does `perf probe -x BUILD -D 'POINT VAR'` define it,
does `kprobe-probe -x BUILD -D 'POINT VAR'`, and where both do, are the
fetch-args the same (names aside)? Prints both success rates side by side.

Used by oracle.py --perf; standalone it reads the oracle's --json output:
  perf_compare.py --oracle-json results.json --bin-dir BUILD/tests/corpus/bin
Standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

PERF_DEF_RE = re.compile(r"^([pr]):(\S+?)/(\S+) (\S+):(0x[0-9a-fA-F]+|\d+)(?:\s+(.*))?$")


def normalise_fetch(args):
    """'name=+0(%di):s32 b=...' -> ('+0(%di):s32', ...): the fetch-args without names."""
    out = []
    for a in args.split():
        a = re.sub(r"^[^=\s]+=", "", a)
        if not re.search(r":[\w@/]+$", a):
            a += ":x64"  # the kernel's default fetch type on 64-bit (perf leaves it out for pointers)
        out.append(a)
    return tuple(out)


def perf_define(exe, spec):
    try:
        r = subprocess.run(["perf", "probe", "-x", exe, "-D", spec], capture_output=True, text=True,
                           timeout=60, errors="replace")
    except subprocess.TimeoutExpired:
        return False, [], "timeout"
    defs = []
    for line in r.stdout.splitlines():
        m = PERF_DEF_RE.match(line.strip())
        if m:
            defs.append((int(m.group(5), 0), normalise_fetch(m.group(6) or "")))
    msg = " ".join(l.strip() for l in r.stderr.splitlines() if l.strip())[:200]
    return r.returncode == 0 and bool(defs), sorted(set(defs)), msg


def compare_build(exe, probes, items, jobs=2):
    """One row per oracle item: ours and perf's verdicts for the same spec."""
    if not shutil.which("perf"):
        return []

    def one(it):
        p = probes[it["probe"]]
        spec = "%s %s" % (p["point"], it["text"])
        ok, defs, msg = perf_define(exe, spec)
        ours = sorted({(o, normalise_fetch(a)) for o, a in it.get("defs", [])}) if it.get("defined") else []
        agree = None
        if ok and it.get("defined"):
            agree = defs == ours
        return {"build": os.path.basename(exe), "spec": spec, "ours": bool(it.get("defined")), "perf": ok,
                "agree": agree, "perf_msg": None if ok else msg, "perf_defs": defs, "our_defs": ours,
                "our_msg": it.get("error")}

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        return list(ex.map(one, items))


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def print_rates(rows, out=sys.stdout):
    w = out.write
    w("\n== perf probe -D vs kprobe-probe -D, per (probe, variable) ==\n")
    w("%-28s %6s %14s %14s %8s %10s %10s\n" % ("build", "specs", "perf defines", "ours defines", "agree", "only perf", "only ours"))
    builds = {}
    for r in rows:
        builds.setdefault(r["build"], []).append(r)
    for name, rs in sorted(builds.items()) + [("TOTAL", rows)]:
        n = len(rs)
        perf = sum(r["perf"] for r in rs)
        ours = sum(r["ours"] for r in rs)
        both = [r for r in rs if r["agree"] is not None]
        agree = sum(1 for r in both if r["agree"])
        w("%-28s %6d %7d %6s %7d %6s %4d/%-4d %10d %10d\n" % (
            name, n, perf, pct(perf, n), ours, pct(ours, n), agree, len(both),
            sum(1 for r in rs if r["perf"] and not r["ours"]), sum(1 for r in rs if r["ours"] and not r["perf"])))
    only_perf = [r for r in rows if r["perf"] and not r["ours"]]
    if only_perf:
        w("\nperf defines, we do not (first 15):\n")
        for r in only_perf[:15]:
            w("  %s: '%s'  perf=%s  ours: %s\n" % (r["build"], r["spec"], " ".join(" ".join(d[1]) for d in r["perf_defs"][:2]), r["our_msg"]))
    differ = [r for r in rows if r["agree"] is False]
    if differ:
        w("\nboth define, fetch-args differ (first 15):\n")
        for r in differ[:15]:
            w("  %s: '%s'\n     perf: %s\n     ours: %s\n" % (r["build"], r["spec"], r["perf_defs"], r["our_defs"]))
    n = len(rows)
    w("\nSUMMARY perf probe defines %d/%d (%s), kprobe-probe defines %d/%d (%s)\n" % (
        sum(r["perf"] for r in rows), n, pct(sum(r["perf"] for r in rows), n),
        sum(r["ours"] for r in rows), n, pct(sum(r["ours"] for r in rows), n)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--oracle-json", required=True, help="oracle.py --json output")
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import oracle
    data = json.load(open(args.oracle_json))
    markers = oracle.read_markers(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
    rows = []
    for rec in data["records"]:
        exe = os.path.join(os.path.abspath(args.bin_dir), rec["build"])
        probes = oracle.read_probes(os.path.join(os.path.dirname(os.path.abspath(__file__)), "probes",
                                                 rec["build"].split("_")[0] + ".probes"), markers)
        rows.extend(compare_build(exe, probes, rec["items"], args.jobs))
    print_rates(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
