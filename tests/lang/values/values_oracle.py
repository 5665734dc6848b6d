#!/usr/bin/env python3
"""The values oracle (issue 28): what kprobe-probe shows of a value must be
what gdb shows at the same address, or kprobe-probe must refuse it with a
reason.

For each build of the fixtures (Go, Rust, C++, C, at several optimization
levels) and each case of cases.txt that applies to it:
  1. `kprobe-probe -x BUILD -D 'G:cN=POINT v=ARG'` gives the sites (file
     offsets) or the reason it refuses;
  2. gdb (values_gdb.py) breaks at those file offsets and records the value
     of the case's gdb expression at every hit, as the language shows it
     (Go and Rust support, libstdc++'s pretty printers);
  3. the defined cases are added and the build runs under
     `setarch -R kprobe-probe trace --json`;
  4. hit by hit: floats equal at their precision, integers equal, text equal
     to gdb's (cut at 64 bytes, the whole length given beside it),
     sequences' first elements and length equal.
Rust Options held in a niche (Option<&T>, Option<Box<T>>, Option<bool>,
Option of a fieldless enum) are checked at opt-level 0 only: in a register,
as at opt-level 1 and 2, gdb 13.1 fails an internal assertion printing them
("idx >= 0 && idx < num_fields ()") and dies. Option<i32> (a discriminant of
its own) and Option<Vec<T>> (in memory) are checked at every level.
A case marked `read` must be defined; `refuse: WORDS` must be refused with a
message that contains WORDS. Prints a table (build, spec, gdb, ours,
verdict) and, with --perf, what `perf probe -D` makes of the same spec.
Exit 1 on a wrong value or a broken expectation, 77 without root or gdb.
Every probe is in the group kpptest_values_<pid> and removed at the end.
"""
import argparse
import fnmatch
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile

# A stop by SIGTERM (a user's kill) still runs the `finally` blocks that
# remove this test's probes: Python's default for it ends the process at once.
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}


def run(cmd, timeout=120, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=env,
                       universal_newlines=True, errors="replace")
    return p.returncode, p.stdout, p.stderr


def read_cases(path):
    cases = []
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not line:
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) < 4:
            raise SystemExit("%s:%d: expected BUILDS | POINT | ARG | GDB-EXPR [| EXPECT]" % (path, n))
        cases.append({"builds": parts[0].split(), "point": parts[1], "arg": parts[2], "expr": parts[3],
                      "expect": parts[4] if len(parts) > 4 else ""})
    return cases


def first_error(err):
    for line in err.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return err.strip().splitlines()[0] if err.strip() else ""


def define(kpp, exe, spec):
    rc, out, err = run([kpp, "-x", exe, "-D", spec])
    offsets = [int(m.group(1), 16) for m in re.finditer(r"^[pr]:\S+ \S+:(0x[0-9a-f]+)", out, re.M)]
    return (offsets, out.strip()) if rc == 0 and offsets else (None, first_error(err))


def perf_define(exe, point, arg):
    if not shutil.which("perf"):
        return "perf not installed"
    rc, out, err = run(["perf", "probe", "-x", exe, "-D", "%s v=%s" % (point, arg) if arg != "$retval" else point + " $retval"])
    if rc == 0 and out.strip():
        return " ".join(out.split()[2:]) or out.strip()
    lines = [l for l in err.splitlines() if l.strip() and not l.startswith("  ")]
    return "refused: " + (lines[-1].strip() if lines else "exit %d" % rc)


def gdb_values(exe, cases):
    with tempfile.TemporaryDirectory(prefix="kpp-values-") as wd:
        req = {"out": os.path.join(wd, "out.json"), "go": "go" in os.path.basename(exe),
               "cases": [{"id": c["id"], "offsets": c["offsets"], "expr": c["expr"]} for c in cases]}
        path = os.path.join(wd, "req.json")
        json.dump(req, open(path, "w"))
        # libstdc++'s printers come with the library (gdb's auto-load); Go's
        # and Rust's are loaded by values_gdb.py.
        cmd = ["gdb", "-nx", "-batch", "-ex", "set startup-with-shell off", "-x", os.path.join(HERE, "values_gdb.py"), "--args", exe]
        rc, out, err = run(cmd, timeout=300, env=dict(ENV, KPP_VALUES_REQUEST=path))
        if not os.path.exists(req["out"]):
            raise RuntimeError("gdb failed (%s): %s %s" % (rc, out[-1500:], err[-1500:]))
        return json.load(open(req["out"]))["hits"]


class FloatText(float):
    """A JSON number kept with its text, to compare a long double's digits."""

    def __new__(cls, text):
        f = super().__new__(cls, text)
        f.text = text
        return f


def trace(kpp, exe, group, cases):
    events = {}
    try:
        for c in cases:
            rc, _, err = run([kpp, "-q", "-x", exe, "--add", c["add"]])
            if rc != 0:
                c["error"] = "add failed: " + first_error(err)
        rc, out, err = run(["setarch", "-R", kpp, "trace", "-e", group + ":*", "--json", "--", exe], timeout=300, env=ENV)
        if rc not in (0, 1):
            raise RuntimeError("trace failed (%d): %s" % (rc, err[-1500:]))
        for line in out.splitlines():
            if not line.startswith("{"):
                continue
            ev = json.loads(line, parse_float=FloatText)
            g, _, name = ev.get("event", "").partition(":")
            if g == group:
                events.setdefault(re.sub(r"_\d+$", "", name), []).append(ev)
    finally:
        run([kpp, "-q", "-d", group + ":*"])
    return events


def same_float(a, b, size):
    if isinstance(b, str):
        return str(a).lower().replace("+", "") == b.lower()
    if size == 4:
        return struct.pack("<f", a) == struct.pack("<f", b)
    return a == b or (a != a and b != b)


def compare(g, ev, max_items):
    """(verdict, our value as text) for one hit."""
    fields = ev.get("fields", {})
    if "v" not in fields and "arg1" not in fields:
        return "WRONG (not in the event)", None
    ours = fields.get("v", fields.get("arg1"))
    cut = ev.get("cut", {}).get("v")
    shown = json.dumps(ours) + ("...(len=%d)" % cut if cut else "")
    kind = g[0]
    if kind == "none":  # an optional value that holds none: null in JSON
        return ("equal" if "v" in fields and ours is None else "WRONG"), shown
    if kind == "some":  # one that holds a value: that value
        return compare(g[1], ev, max_items)
    if kind == "float":
        return ("equal" if isinstance(ours, (int, float, str)) and same_float(g[1], ours, g[2]) else "WRONG"), shown
    if kind == "ldouble":
        # gdb's text ("0.100000000000000000001") against our JSON number's own text.
        text = getattr(ours, "text", json.dumps(ours) if not isinstance(ours, str) else ours)
        return ("equal" if text == g[1] else "WRONG"), shown
    if kind == "enum":
        # The number, and gdb's text for it beside it ("names"): "GREEN", "(A | B)", "7".
        name = ev.get("names", {}).get("v")
        shown = json.dumps(ours) + (" " + name if name is not None else "")
        return ("equal" if ours == g[1] and name == g[2] else "WRONG"), shown
    if kind == "int":
        return ("equal" if ours == g[1] or (isinstance(ours, int) and ours % (1 << 64) == g[1] % (1 << 64)) else "WRONG"), shown
    if kind == "text":
        want, whole = g[1][:64], len(g[1])
        ok = ours == want and (cut == whole if whole > 64 else not cut)
        return ("equal" if ok else "WRONG"), shown
    if kind == "chars":
        # A char array: its first 64 bytes, the NULs that end them left out
        # (gdb shows them, '\000' <repeats N times>), and its length when longer.
        want, whole = g[1][:64].rstrip("\0"), g[2]
        ok = ours == want and (cut == whole if whole > 64 else not cut)
        return ("equal" if ok else "WRONG"), shown
    if kind == "items":
        length, elements = g[1], g[2]
        # A fixed array (gdb gives its element size) is fetched whole up to
        # the kernel's 64 elements; a longer one, and any counted sequence,
        # as its first max_items elements and its length.
        fixed = len(g) > 3
        n = length if fixed and length <= 64 else min(length, max_items)
        ok = isinstance(ours, list) and len(ours) == n and (cut == length if length > n else not cut)
        if ok:
            for a, b in zip(elements[:n], ours):
                ok = ok and (same_float(a, b, g[3] if len(g) > 3 else 8) if isinstance(a, float) else a == b)
        return ("equal" if ok else "WRONG"), shown
    return "no oracle (%s)" % " ".join(str(x) for x in g[1:])[:60], shown


def marked_line(point):
    """A source line named by a marker in the fixture's source, as
    `values.go:@greet_body`: the line of the comment `@greet_body` in
    tests/lang/values/values.go, so that the case follows the source."""
    m = re.fullmatch(r"([\w.]+):@(\w+)", point)
    if not m:
        return point
    for n, line in enumerate(open(os.path.join(HERE, m.group(1))), 1):
        if re.search(r"@%s\b" % m.group(2), line):
            return "%s:%d" % (m.group(1), n)
    raise SystemExit("no marker @%s in %s" % (m.group(2), m.group(1)))


def run_build(args, exe, cases, group):
    rows = []
    name = os.path.basename(exe)
    mine = []
    for i, c in enumerate(cases):
        if not any(fnmatch.fnmatch(name, b) for b in c["builds"]):
            continue
        c = dict(c, id="c%d" % i, point=marked_line(c["point"]))
        arg = c["arg"] if c["arg"] == "$retval" else "v=" + c["arg"]
        c["add"] = "%s:%s=%s %s" % (group, c["id"], c["point"], arg)
        c["offsets"], c["definition"] = define(args.kpp, exe, c["add"])
        c["perf"] = perf_define(exe, c["point"], c["arg"]) if args.perf else ""
        mine.append(c)
    defined = [c for c in mine if c["offsets"]]
    hits = gdb_values(exe, defined) if defined else {}
    events = trace(args.kpp, exe, group, defined) if defined else {}
    for c in mine:
        spec = "%s %s" % (c["point"], c["arg"])
        expect = c["expect"]
        if not c["offsets"]:
            ok = not expect.startswith("read") and (not expect.startswith("refuse") or expect[7:].strip().lower() in c["definition"].lower())
            rows.append([name, spec, "-", "refused: " + c["definition"], "refused" if ok else "BROKEN", c["perf"]])
            continue
        if expect.startswith("refuse"):
            rows.append([name, spec, "-", c["definition"], "BROKEN (should refuse)", c["perf"]])
            continue
        if c.get("error"):  # defined, but the kernel refused the definition
            rows.append([name, spec, "-", c["error"], "BROKEN (not installed)", c["perf"]])
            continue
        ghits, evs = hits.get(c["id"], []), events.get(c["id"], [])
        if len(ghits) != len(evs):
            # Go re-enters a function from its first byte after growing the
            # goroutine's stack (morestack), some runs and not others: the
            # same values twice in a row, on either side.
            ghits = [g for n, g in enumerate(ghits) if n == 0 or g != ghits[n - 1]]
            evs = [e for n, e in enumerate(evs) if n == 0 or e.get("fields") != evs[n - 1].get("fields")]
        if not ghits:
            rows.append([name, spec, "no hit", "", "BROKEN (gdb never stopped)", c["perf"]])
        if len(ghits) != len(evs):
            rows.append([name, spec, "%d hits" % len(ghits), "%d events" % len(evs), "WRONG (hit count)", c["perf"]])
        for g, ev in zip(ghits, evs):
            verdict, shown = compare(g, ev, args.max_items)
            rows.append([name, spec, json.dumps(g[1:] if len(g) > 1 else g), shown, verdict, c["perf"]])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kpp", required=True)
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.txt"))
    ap.add_argument("--builds", default="*")
    ap.add_argument("--perf", action="store_true")
    ap.add_argument("--max-items", type=int, default=8)
    ap.add_argument("--json")
    args = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("gdb") or not shutil.which("setarch"):
        print("SKIP: the values oracle needs root, gdb and setarch")
        return 77
    cases = read_cases(args.cases)
    builds = sorted(f for f in os.listdir(args.bin_dir)
                    if any(fnmatch.fnmatch(f, b) for b in args.builds.split(",")) and
                    any(fnmatch.fnmatch(f, g) for c in cases for g in c["builds"]))
    if not builds:
        print("SKIP: no fixture builds in %s" % args.bin_dir)
        return 77
    rows = []
    for i, b in enumerate(builds):
        rows += run_build(args, os.path.join(args.bin_dir, b), cases, "kpptest_values_%d_%d" % (os.getpid(), i))
    for r in rows:
        print(" | ".join(str(x) for x in r[:5]) + (" | perf: " + r[5] if args.perf else ""))
    bad = [r for r in rows if r[4].startswith(("WRONG", "BROKEN"))]
    counts = {}
    for r in rows:
        counts[r[4].split(" ")[0]] = counts.get(r[4].split(" ")[0], 0) + 1
    print("values: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
