#!/usr/bin/env python3
"""The corpus oracle: gdb says what each variable is at the probe address,
our uprobe events must carry the same value.

For each build of each fixture program and each probe of its probe list
(probes/PROG.probes):
  1. `kprobe-probe -x BUILD -D 'G:pI=POINT'` gives the probe's sites (file
     offsets, turned into addresses with the ELF program headers);
  2. gdb runs the build with a breakpoint at exactly those addresses and
     records, at every hit, each requested argument and (for $vars) every
     local and parameter in scope (gdb_collect.py);
  3. every argument becomes its own event `G:pIaJ=POINT ARG`: -D tells
     whether we can define it (and why not), the defined ones are added and
     the build runs under `kprobe-probe trace --json`;
  4. hit by hit, per event, in order: each value gdb shows must be in our
     event and equal. Counted: shown, equal, wrong, not fetched (with the
     tool's reason); values we fetch where gdb says optimized out are
     counted apart (suspicious).
Both runs are made without address randomization and with the same
environment, so pointers compare as numbers.

Every probe it adds is in its own group kpptest_corpus_<pid>_<n> and is
removed at the end, also on failure. Standard library only.
"""
import argparse
import concurrent.futures
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
CLEAN_ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}


# ----------------------------------------------------------------------------
# ELF: file offset -> virtual address (PT_LOAD)

def load_segments(path):
    with open(path, "rb") as f:
        data = f.read(1 << 16)
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError(path + ": not an ELF64 file")
    endian = "<" if data[5] == 1 else ">"
    phoff, = struct.unpack_from(endian + "Q", data, 0x20)
    phentsize, phnum = struct.unpack_from(endian + "HH", data, 0x36)
    segs = []
    for i in range(phnum):
        p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(endian + "IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1:
            segs.append((p_offset, p_vaddr, p_filesz))
    return segs


def offset_to_vaddr(segs, off):
    for p_offset, p_vaddr, p_filesz in segs:
        if p_offset <= off < p_offset + p_filesz:
            return off - p_offset + p_vaddr
    return off


# ----------------------------------------------------------------------------
# Probe lists

def read_markers(fixtures_dir):
    markers = {}
    for name in sorted(os.listdir(fixtures_dir)):
        with open(os.path.join(fixtures_dir, name), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for m in re.finditer(r"@([A-Za-z_]\w*)", line):
                    markers[m.group(1)] = (name, n)
    return markers


def substitute(text, markers):
    def repl(m):
        a = markers[m.group(1)][1]
        if m.group(2):
            return str(a - markers[m.group(2)][1])
        return str(a)
    return re.sub(r"\{(\w+)(?:-(\w+))?\}", repl, text)


def parse_point(point):
    """func/src/line/ret of a perf probe point, for gdb to pick the block."""
    info = {"func": None, "src": None, "line": None, "ret": False}
    p = point
    if p.endswith("%return"):
        info["ret"] = True
        p = p[: -len("%return")]
    m = re.fullmatch(r"([\w./+-]+\.(?:c|cc|cpp|h|hpp)):(\d+)", p)
    if m:
        info["src"], info["line"] = m.group(1), int(m.group(2))
        return info
    m = re.fullmatch(r"(.*?)(?:@([\w./+-]+))?(?::(\d+))?", p)
    info["func"] = m.group(1)
    if m.group(2):
        info["src"] = m.group(2)
    return info


def parse_arg(arg):
    """(gdb expression, kind) of a perf probe argument."""
    name, _, rest = arg.partition("=") if re.match(r"^\w+=", arg) else ("", "", arg)
    expr, _, typ = rest.partition(":")
    kind = "auto"
    if typ == "string" or typ == "ustring":
        kind = "string"
    elif re.fullmatch(r"[sux](8|16|32|64)", typ):
        kind = typ
    return expr, kind


def read_probes(path, markers):
    probes = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
            if not line:
                continue
            words = substitute(line, markers).split()
            point, args = words[0], words[1:]
            info = parse_point(point)
            probe = {"point": point, "vars": "$vars" in args, "args": [], **info}
            for a in args:
                if a == "$vars":
                    continue
                if a == "$retval":
                    probe["args"].append({"key": "ret:$retval", "text": "$retval", "expr": None, "kind": "auto"})
                    continue
                expr, kind = parse_arg(a)
                probe["args"].append({"key": "arg:" + a, "text": a, "expr": expr, "kind": kind})
            probes.append(probe)
    return probes


# ----------------------------------------------------------------------------
# The tool

def run(cmd, timeout=120, env=None):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, errors="replace")
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        return -1, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout after %ss" % timeout


DEF_RE = re.compile(r"^([pr]):(\S+?)/(\S+) (\S+):(0x[0-9a-fA-F]+|\d+)(?:\s+(.*))?$")


def parse_definitions(out, event=None):
    """[(kind, event, offset, [args])] of -D output lines (of EVENT and its EVENT_N splits only)."""
    defs = []
    for line in out.splitlines():
        m = DEF_RE.match(line.strip())
        if not m:
            continue
        # Sites whose arguments differ in type are split into EVENT_1, EVENT_2...
        if event and not re.fullmatch(re.escape(event) + r"(_\d+)?", m.group(3)):
            continue
        defs.append((m.group(1), m.group(3), int(m.group(5), 0), (m.group(6) or "").split()))
    return defs


def first_message(err):
    for line in err.splitlines():
        line = line.strip()
        if line.startswith("kprobe-probe: error:") or line.startswith("kprobe-probe: warning:"):
            return line.split(":", 2)[2].strip()
    lines = [l.strip() for l in err.splitlines() if l.strip()]
    return lines[0] if lines else "(no message)"


def define(kpp, exe, spec):
    rc, out, err = run([kpp, "-x", exe, "-D", spec], timeout=60)
    return rc, out, err


# ----------------------------------------------------------------------------
# One build

def gdb_collect(exe, probes, workdir, segs):
    req = {"exe": exe, "out": os.path.join(workdir, "gdb.json"), "probes": []}
    for i, p in enumerate(probes):
        if not p.get("sites"):
            continue
        req["probes"].append({
            "id": str(i), "sites": p["sites"], "ret": p["ret"], "func": p["func"], "src": p["src"],
            "line": p["line"], "vars": p["vars"] and not p["ret"],
            "args": [a for a in p["args"] if a["expr"] is not None],
        })
    path = os.path.join(workdir, "gdb_request.json")
    with open(path, "w") as f:
        json.dump(req, f)
    env = dict(CLEAN_ENV, KPP_CORPUS_GDB_REQUEST=path)
    cmd = ["gdb", "-nx", "-batch", "-ex", "set startup-with-shell off", "-ex", "unset environment",
           "-ex", "set environment PATH " + CLEAN_ENV["PATH"], "-ex", "set environment LC_ALL C",
           "-x", os.path.join(HERE, "gdb_collect.py"), "--args", exe]
    rc, out, err = run(cmd, timeout=300, env=env)
    if not os.path.exists(req["out"]):
        raise RuntimeError("gdb failed (exit %s): %s\n%s" % (rc, out[-2000:], err[-2000:]))
    with open(req["out"]) as f:
        return json.load(f)


def tool_value(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, str) and re.fullmatch(r"-?0x[0-9a-fA-F]+|-?\d+", v):
        return int(v, 0)
    return v


def run_build(args, exe, probes, group, log):
    """Returns the per-build record: counts and the list of cases."""
    segs = load_segments(exe)
    rec = {"build": os.path.basename(exe), "shown": 0, "ok": 0, "wrong": 0, "not_fetched": 0,
           "suspicious": 0, "hit_mismatch": 0, "uninit": 0, "points": len(probes), "points_failed": 0,
           "cases": [], "items": []}
    jobs = args.jobs

    # 1. sites
    def sites_of(i):
        p = probes[i]
        ev = "p%d" % i
        rc, out, err = define(args.kpp, exe, "%s:%s=%s" % (group, ev, p["point"]))
        defs = parse_definitions(out, ev)
        return i, rc, defs, err

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for i, rc, defs, err in ex.map(sites_of, range(len(probes))):
            probes[i]["sites"] = sorted({offset_to_vaddr(segs, d[2]) for d in defs}) if rc == 0 else []
            probes[i]["point_error"] = None if rc == 0 and defs else first_message(err)
            if rc < 0 or rc >= 128:
                probes[i]["point_error"] = "kprobe-probe crashed (exit %d, %s)" % (rc, err.strip()[-200:])
                probes[i]["crashed"] = True

    # 2. gdb
    with tempfile.TemporaryDirectory(prefix="kpp-corpus-") as wd:
        truth = gdb_collect(exe, probes, wd, segs)
    hits = truth["hits"]

    # 3. the arguments: explicit ones, then every variable gdb saw in scope
    items = []  # (probe index, key, arg text)
    for i, p in enumerate(probes):
        keys = [(a["key"], a["text"]) for a in p["args"]]
        if p["vars"] and not p["ret"]:
            seen = []
            for h in hits.get(str(i), []):
                for k in h["values"]:
                    if k.startswith("var:") and k not in seen:
                        seen.append(k)
            keys = [(k, k[4:]) for k in seen] + keys
        for j, (key, text) in enumerate(keys):
            items.append({"probe": i, "key": key, "text": text, "event": "p%da%d" % (i, j)})

    def define_item(it):
        p = probes[it["probe"]]
        arg = it["text"] if it["text"] == "$retval" else "v=" + it["text"]
        spec = "%s=%s %s" % (it["event"], p["point"], arg)
        rc, out, err = define(args.kpp, exe, group + ":" + spec)
        defs = parse_definitions(out, it["event"])
        it["spec"] = "%s %s" % (p["point"], it["text"])
        it["add"] = group + ":" + spec
        if rc == 0 and defs:
            it["defined"] = True
            it["sites"] = sorted({offset_to_vaddr(segs, d[2]) for d in defs})
            it["fetch"] = sorted({" ".join(d[3]) for d in defs})
            it["defs"] = sorted({(d[2], " ".join(d[3])) for d in defs})
            it["warning"] = first_message(err) if err.strip() else None
        else:
            it["defined"] = False
            it["error"] = first_message(err) if rc != 0 else "no definition printed"
            if rc < 0 or rc >= 128:
                it["error"] = "kprobe-probe crashed (exit %d, %s)" % (rc, err.strip()[-200:])
                it["crashed"] = True
        return it

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        items = list(ex.map(define_item, items))
    rec["items"] = items

    # 4. add, trace, remove
    events = {}
    added = False
    try:
        todo = [it for it in items if it["defined"]]
        if todo:
            cmd = [args.kpp, "-q", "-x", exe]
            for it in todo:
                cmd += ["--add", it["add"]]
            rc, out, err = run(cmd, timeout=120)
            added = True
            if rc != 0:
                log("  adding all at once failed (%s); one by one" % first_message(err))
                for it in todo:
                    rc, out, err = run([args.kpp, "-q", "-x", exe, "--add", it["add"]], timeout=60)
                    if rc != 0:
                        it["defined"] = False
                        it["error"] = "add failed: " + first_message(err)
            cmd = ["setarch", "-R", args.kpp, "trace", "-e", group + ":*", "--json", "--", exe]
            rc, out, err = run(cmd, timeout=300, env=CLEAN_ENV)
            if rc != 0:
                raise RuntimeError("trace failed (exit %s): %s" % (rc, err[-2000:]))
            for line in out.splitlines():
                if not line.startswith("{"):
                    continue
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                g, _, name = ev.get("event", "").partition(":")
                if g != group:
                    continue
                name = re.sub(r"_\d+$", "", name)  # EVENT_1...: the same item's other sites
                events.setdefault(name, []).append(ev.get("fields", {}))
    finally:
        if added:
            run([args.kpp, "-q", "-d", group + ":*"], timeout=60)

    rec["crashes"] = sum(1 for it in items if it.get("crashed")) + sum(1 for p in probes if p.get("crashed"))
    # 5. compare
    def case(kind, it, gdb_val, tool, why):
        rec["cases"].append({"kind": kind, "spec": it["spec"], "gdb": gdb_val, "tool": tool, "why": why,
                             "fetch": it.get("fetch"), "build": rec["build"]})

    for it in items:
        p = probes[it["probe"]]
        ghits = hits.get(str(it["probe"]), [])
        if it["defined"]:
            site_set = set(it["sites"])
            mine = [h for h in ghits if h["site"] in site_set]
            other = [h for h in ghits if h["site"] not in site_set]
            evs = events.get(it["event"], [])
            if len(evs) != len(mine):
                rec["hit_mismatch"] += 1
                case("hits", it, len(mine), len(evs), "gdb hit the sites %d times, the event fired %d times" % (len(mine), len(evs)))
        else:
            mine, other, evs = [], ghits, []
        for n, h in enumerate(mine):
            g = h["values"].get(it["key"])
            if g is None:
                continue
            ev = evs[n] if n < len(evs) else None
            tv = None
            if ev is not None and ev:
                tv = tool_value(next(iter(ev.values())))
            if g[0] in ("int", "str"):
                rec["shown"] += 1
                if tv is None:
                    rec["not_fetched"] += 1
                    case("not_fetched", it, g[1], None, "event missing" if ev is None else "field missing")
                elif tv == g[1]:
                    rec["ok"] += 1
                else:
                    rec["wrong"] += 1
                    case("wrong", it, g[1], tv, "hit %d at 0x%x" % (n, h["site"]))
            elif g[0] == "uninit":
                rec["uninit"] += 1
            elif g[0] == "opt" and tv is not None:
                rec["suspicious"] += 1
                case("suspicious", it, "<optimized out>", tv, "hit %d at 0x%x" % (n, h["site"]))
        for h in other:
            g = h["values"].get(it["key"])
            if g is None or g[0] not in ("int", "str"):
                continue
            rec["shown"] += 1
            rec["not_fetched"] += 1
            why = it.get("error") if not it["defined"] else "site 0x%x left out: %s" % (h["site"], it.get("warning"))
            case("not_fetched", it, g[1], None, why)
    # probe points that did not resolve at all
    for i, p in enumerate(probes):
        if p.get("point_error"):
            rec["points_failed"] += 1
            rec["cases"].append({"kind": "point", "spec": p["point"], "gdb": None, "tool": None,
                                 "why": p["point_error"], "build": rec["build"]})
    return rec


# ----------------------------------------------------------------------------
# Summary

def normalise_reason(why):
    s = why or ""
    s = re.sub(r"kpptest_corpus_\d+_\d+", "G", s)
    s = re.sub(r"\[\s*\d+\.\d+\]", "", s)
    s = re.sub(r"/\S+/bin/(\w+)", "BUILD", s)
    s = re.sub(r"\bp\d+a\d+\b", "EV", s)
    s = re.sub(r"\(p:G/EV .*?\)", "(DEF)", s)
    s = re.sub(r"'[^']*'", "'X'", s)
    s = re.sub(r"\b0x[0-9a-fA-F]+\b", "0xN", s)
    s = re.sub(r"\b[\w.]+\+0xN\b", "F+0xN", s)
    s = re.sub(r"\bat \S+@\S+", "at F@SRC", s)
    s = re.sub(r"\b\d+\b", "N", s)
    return s[:160]


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def summarise(records, perf_rows=None, out=sys.stdout):
    w = out.write
    w("\n== corpus oracle: values gdb shows at our probe addresses ==\n")
    w("(shown: values gdb prints; notfet: shown but not in our event; susp: we fetch, gdb says optimized out;\n"
      " hitmm: events whose hit count differs from gdb's; points: probe points resolved/listed)\n")
    w("%-28s %7s %7s %7s %7s %6s %6s %8s %9s\n" % ("build", "shown", "equal", "wrong", "notfet", "susp", "hitmm", "equal%", "points"))
    tot = {k: 0 for k in ("shown", "ok", "wrong", "not_fetched", "suspicious", "hit_mismatch", "points", "points_failed")}
    for r in records:
        for k in tot:
            tot[k] += r.get(k, 0)
    for r in records + [dict(tot, build="TOTAL")]:
        w("%-28s %7d %7d %7d %7d %6d %6d %8s %4d/%-4d\n" % (
            r["build"], r["shown"], r["ok"], r["wrong"], r["not_fetched"], r["suspicious"], r["hit_mismatch"],
            pct(r["ok"], r["shown"]), r.get("points", 0) - r.get("points_failed", 0), r.get("points", 0)))
    # by compiler / opt / dwarf
    groups = {}
    for r in records:
        m = re.match(r"(\w+?)_(gcc|clang)_(O\d)_dw(\d)$", r["build"])
        if not m:
            continue
        for key in (m.group(2), m.group(3), "dwarf" + m.group(4), m.group(2) + " " + m.group(3)):
            g = groups.setdefault(key, {"shown": 0, "ok": 0, "wrong": 0})
            for k in g:
                g[k] += r[k]
    w("\nby compiler / level / DWARF version:\n")
    for key in sorted(groups):
        g = groups[key]
        w("  %-12s shown %6d  equal %6d (%s)  wrong %d\n" % (key, g["shown"], g["ok"], pct(g["ok"], g["shown"]), g["wrong"]))
    # causes
    causes = {}
    for r in records:
        for c in r["cases"]:
            key = (c["kind"], normalise_reason(c["why"]) if c["kind"] != "wrong" else "wrong value")
            e = causes.setdefault(key, {"n": 0, "example": c, "builds": set()})
            e["n"] += 1
            e["builds"].add(c["build"])
    w("\ncases by cause (count, builds, one example):\n")
    for (kind, why), e in sorted(causes.items(), key=lambda kv: (kv[0][0] != "wrong", -kv[1]["n"])):
        c = e["example"]
        w("  [%s] x%d in %d builds: %s\n" % (kind, e["n"], len(e["builds"]), why))
        w("      e.g. %s: -x %s -D '%s'  gdb=%r tool=%r%s\n" % (
            c["build"], c["build"], c["spec"], c["gdb"], c["tool"],
            ("  fetch=" + ";".join(c["fetch"])) if c.get("fetch") else ""))
        if kind != "wrong":
            w("      tool says: %s\n" % c["why"])
    if kind_count(records, "wrong") or kind_count(records, "suspicious"):
        w("\nwrong and suspicious values (first 40):\n")
        listed = [c for r in records for c in r["cases"] if c["kind"] in ("wrong", "suspicious")]
        for c in listed[:40]:
                if True:
                    w("  %s: '%s' gdb=%r tool=%r fetch=%s (%s)\n" % (c["build"], c["spec"], c["gdb"], c["tool"],
                                                                  ";".join(c.get("fetch") or []), c["why"]))
    if perf_rows is not None:
        import perf_compare
        perf_compare.print_rates(perf_rows, out)
    w("\nSUMMARY values gdb shows: %d; fetched and equal: %d (%s); wrong: %d; not fetched: %d; suspicious: %d;"
      " probe points resolved: %d/%d\n" % (
        tot["shown"], tot["ok"], pct(tot["ok"], tot["shown"]), tot["wrong"], tot["not_fetched"], tot["suspicious"],
        tot["points"] - tot["points_failed"], tot["points"]))
    return tot


def kind_count(records, kind):
    return sum(1 for r in records for c in r["cases"] if c["kind"] == kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kpp", required=True, help="the kprobe-probe binary")
    ap.add_argument("--bin-dir", required=True, help="the corpus builds (build dir tests/corpus/bin)")
    ap.add_argument("--builds", default="*", help="comma-separated globs of build names (default all)")
    ap.add_argument("--probes-dir", default=os.path.join(HERE, "probes"))
    ap.add_argument("--fixtures-dir", default=os.path.join(HERE, "fixtures"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every record here")
    ap.add_argument("--perf", action="store_true", help="also run perf probe -D over the same probes (perf_compare.py)")
    ap.add_argument("--fail-on-wrong", action="store_true", help="exit 1 when any value is wrong")
    args = ap.parse_args()

    if os.geteuid() != 0:
        print("corpus oracle: needs root (uprobes)")
        return 77
    if not shutil.which("gdb") or not shutil.which("setarch"):
        print("corpus oracle: needs gdb and setarch")
        return 77
    args.kpp = os.path.abspath(args.kpp)
    markers = read_markers(args.fixtures_dir)
    globs = [g for g in args.builds.split(",") if g]
    # A split build's .dwo files, .dwp package and working directory sit beside it: they are not builds.
    builds = sorted(b for b in os.listdir(args.bin_dir)
                    if any(fnmatch.fnmatch(b, g) for g in globs) and not b.endswith((".dwo", ".dwp", ".build")))
    if not builds:
        print("corpus oracle: no builds match %s in %s" % (args.builds, args.bin_dir))
        return 1
    records = []
    perf_rows = [] if args.perf else None
    for n, b in enumerate(builds):
        prog = b.split("_")[0]
        probes = read_probes(os.path.join(args.probes_dir, prog + ".probes"), markers)
        group = "kpptest_corpus_%d_%d" % (os.getpid(), n)
        exe = os.path.join(os.path.abspath(args.bin_dir), b)
        print("[%d/%d] %s" % (n + 1, len(builds), b), flush=True)
        try:
            rec = run_build(args, exe, probes, group, lambda s: print(s, flush=True))
        except Exception as e:  # a build that cannot be run is a failure, not a crash
            print("  ERROR: %s" % e, flush=True)
            rec = {"build": b, "shown": 0, "ok": 0, "wrong": 0, "not_fetched": 0, "suspicious": 0,
                   "hit_mismatch": 0, "cases": [{"kind": "error", "spec": "-", "gdb": None, "tool": None,
                                                 "why": str(e), "build": b}], "items": [], "error": str(e)}
        print("  shown %d equal %d wrong %d not fetched %d suspicious %d" % (
            rec["shown"], rec["ok"], rec["wrong"], rec["not_fetched"], rec["suspicious"]), flush=True)
        records.append(rec)
        if perf_rows is not None and rec["items"]:
            sys.path.insert(0, HERE)
            import perf_compare
            perf_rows.extend(perf_compare.compare_build(exe, probes, rec["items"], args.jobs))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"records": records, "perf": perf_rows}, f, indent=1, default=list)
    tot = summarise(records, perf_rows)
    errors = [r for r in records if r.get("error")]
    crashes = sum(r.get("crashes", 0) for r in records)
    if crashes:
        print("kprobe-probe crashed %d times (see the cases)" % crashes)
    if args.fail_on_wrong and (tot["wrong"] or errors or crashes):
        print("FAIL: %d wrong values, %d crashes, %d builds in error" % (tot["wrong"], crashes, len(errors)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
