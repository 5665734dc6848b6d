#!/usr/bin/env python3
"""kprobe-probe vs perf probe on the user-space binaries people probe (issue 17):
python3.11 (LTO, DWARF by build-id from python3.11-dbg), glibc (libc6-dbg) and
libstdc++'s -O0 debug build (libstdc++6-12-dbg); and a Go and a Rust program
the build makes (tests/lang: go_names, rust_names_O1; issue 28). The same specs through both
tools in one run, medians of wall time and peak RSS; ours cold (--no-cache)
and warm (the cache an earlier run wrote). Definitions are compared with
perf's wherever perf succeeds, and ours cold with ours warm always; a
difference is printed in the table, never hidden.

usage: bench/user_compare.py [--build DIR] [--reps N] [--only REGEX] [--markdown] [--verbose]
--smoke: one repetition, no RSS runs, exit 1 when ours cold and warm disagree
(what CTest runs, so that the script cannot rot).
"""
import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perf_compare import cache_envs, command, definitions, fmt_time, machine_line, measure, ratio, run, table  # noqa: E402

PYTHON = "/usr/bin/python3.11"
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
LIBSTDCXX = "/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30"

# (binary, label, what, arguments): what is D (-D spec), V, L or F, as in perf_compare.
SPECS = [
    (PYTHON, "-F", "F", []),
    (PYTHON, "entry _PyEval_EvalFrameDefault throwflag", "D", ["_PyEval_EvalFrameDefault throwflag"]),
    (PYTHON, "entry PyObject_Malloc size", "D", ["PyObject_Malloc size"]),
    (PYTHON, "entry PyUnicode_FromString u", "D", ["PyUnicode_FromString u"]),
    (PYTHON, "member v->ob_type->tp_name", "D", ["PyObject_Repr v->ob_type->tp_name:string"]),
    (PYTHON, "line PyObject_Repr:3", "D", ["PyObject_Repr:3"]),
    (PYTHON, "-V PyObject_Repr", "V", ["PyObject_Repr"]),
    (PYTHON, "-L PyUnicode_FromString", "L", ["PyUnicode_FromString"]),
    (LIBC, "-F", "F", []),
    (LIBC, "entry __libc_malloc bytes", "D", ["__libc_malloc bytes"]),
    (LIBC, "member fp->_flags", "D", ["_IO_new_fclose fp->_flags"]),
    (LIBC, "line __libc_malloc:18 bytes", "D", ["__libc_malloc:18 bytes"]),
    (LIBC, "-V __libc_malloc", "V", ["__libc_malloc"]),
    (LIBC, "-L __libc_malloc", "L", ["__libc_malloc"]),
    (LIBSTDCXX, "-F", "F", []),
    (LIBSTDCXX, "entry __cxa_throw obj tinfo", "D", ["__cxa_throw obj tinfo"]),
    (LIBSTDCXX, "member __x->_M_parent->_M_color", "D",
     ["_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base __x->_M_parent->_M_color"]),
    (LIBSTDCXX, "line __cxa_throw:5 obj", "D", ["__cxa_throw:5 obj"]),
    (LIBSTDCXX, "-V __cxa_throw", "V", ["__cxa_throw"]),
    (LIBSTDCXX, "-L __cxa_throw", "L", ["__cxa_throw"]),
]


def lang_specs(build):
    """Go and Rust programs the build made (tests/lang, issue 28): -F and -D on
    each, ours beside perf's in the same run."""
    fixtures = os.path.join(build, "tests/lang/fixtures")
    go, rust = os.path.join(fixtures, "go_names"), os.path.join(fixtures, "rust_names_O1")
    return [
        (go, "-F", "F", []),
        (go, "entry main.Price", "D", ["main.Price"]),
        (go, "entry main.(*Shop).Restock", "D", ["main.(*Shop).Restock"]),
        (rust, "-F", "F", []),
        (rust, "entry names::price", "D", ["names::price"]),
        # perf reads "names::price" as FUNC:LINE and fails at once; by the DIE's
        # short name it finds the function, so this row compares finding work.
        (rust, "entry price", "D", ["price"]),
    ]


def short(binary):
    return os.path.basename(binary).split(".so")[0]


def verdict(what, perf, cold, warm):
    """How the outputs compare: perf's definitions with ours (when perf answered
    -D), ours cold with ours warm always (every option: -F, -V, -L included)."""
    (pc, ptext), (cc, ctext), (wc, wtext) = perf, cold, warm
    notes = []
    if cc != 0 or wc != 0:
        notes.append(f"ours exit {cc}/{wc}")
    if ctext != wtext:
        notes.append("COLD/WARM DIFFER")
    if what == "D" and pc == 0 and cc == 0:
        notes.append("same as perf" if definitions(ptext) == definitions(ctext) else "differs from perf")
    elif pc != 0:
        notes.append("perf fails")
    return "; ".join(notes)


def compare(args, ours, env_warm, env_cold):
    rows, ratios, failed = [], [], []
    for binary, label, what, spec_args in SPECS + lang_specs(args.build):
        name = f"{short(binary)} {label}"
        if args.only and not re.search(args.only, name):
            continue
        if not os.path.exists(binary):
            print(f"  {name}: skipped, {binary} is not installed (scripts/install-deps.sh --tests)", file=sys.stderr)
            continue
        target = ["-x", binary]
        reps, rss = (1, False) if args.smoke else (args.reps, True)
        pw, pm, pc, ptext = measure(command("perf", target, what, spec_args), reps, rss=rss)
        cw, cm, cc, ctext = measure(command(ours, target, what, spec_args, ["--no-cache"]), reps, env_cold, rss=rss)
        run(command(ours, target, what, spec_args), env_warm)  # writes the cache files when missing
        ww, wm, wc, wtext = measure(command(ours, target, what, spec_args), reps, env_warm, rss=rss)
        note = verdict(what, (pc, ptext), (cc, ctext), (wc, wtext))
        if "COLD/WARM" in note:
            failed.append(f"{name}: {note}")
        if args.verbose and ("DIFFER" in note or "differs" in note):
            print(f"{name}:\n perf: {definitions(ptext)}\n cold: {definitions(ctext)}\n warm: {definitions(wtext)}",
                  file=sys.stderr)
        rows.append([short(binary), label, fmt_time(pw), fmt_time(cw), fmt_time(ww), ratio(cw, pw), ratio(ww, pw),
                     f"{pm / 1024:.0f}", f"{cm / 1024:.0f}", f"{wm / 1024:.0f}", note])
        ratios.append((cw / pw, ww / pw, cm / pm if pm else 0))
        print(f"  {name}: perf {fmt_time(pw)} ours {fmt_time(cw)}/{fmt_time(ww)}", file=sys.stderr)
    headers = ["binary", "spec", "perf", "ours cold", "ours warm", "cold/perf", "warm/perf",
               "perf MB", "cold MB", "warm MB", "definitions"]
    print(table(rows, headers, args.markdown))
    if ratios:
        print(f"\nmedian ratios: cold/perf {statistics.median(r[0] for r in ratios):.3f}, "
              f"warm/perf {statistics.median(r[1] for r in ratios):.3f}"
              + ("" if args.smoke else f", RSS cold/perf {statistics.median(r[2] for r in ratios):.3f}"))
    return failed


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--only")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--smoke", action="store_true")
    args = p.parse_args()
    ours = os.path.abspath(os.path.join(args.build, "src/cli/kprobe-probe"))
    if not shutil.which("perf"):
        print("user_compare: SKIP: perf is not installed (scripts/install-deps.sh --tests)")
        sys.exit(77)
    if not any(os.path.exists(b) for b in (PYTHON, LIBC, LIBSTDCXX)):
        print("user_compare: SKIP: none of the benchmarked binaries is installed")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="kpp-user-bench-")
    try:
        env_warm, env_cold = cache_envs(work)
        print(f"{machine_line()}; medians of {1 if args.smoke else args.reps} runs")
        failed = compare(args, ours, env_warm, env_cold)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failed:
        print(f"user_compare: {f}", file=sys.stderr)
    sys.exit(1 if failed and args.smoke else 0)


if __name__ == "__main__":
    main()
