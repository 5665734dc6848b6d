#!/usr/bin/env python3
"""kprobe-probe vs perf probe on the user-space binaries people probe (issue 17):
python3.11 (LTO, DWARF by build-id from python3.11-dbg), glibc (libc6-dbg) and
libstdc++'s -O0 debug build (libstdc++6-12-dbg); and a Go and a Rust program
the build makes (tests/lang: go_names, rust_names_O1; issue 28), each beside a
C program of its size (bench/CMakeLists.txt generates them with
bench/sized_c_program.py: c_sized_go_names, c_sized_rust_names_O1; the
sizes are printed before the table), so that a language's cost relative to
perf is read against C's on a binary as big. The same specs through both
tools in one run, medians of wall time and peak RSS; ours cold (--no-cache)
and warm (the cache an earlier run wrote). Definitions are compared with
perf's wherever perf succeeds, and ours cold with ours warm always; a
difference is printed in the table, never hidden.

usage: bench/user_compare.py [--build DIR] [--reps N] [--only REGEX] [--markdown] [--verbose]
                             [--baseline KPROBE_PROBE]
--baseline: another kprobe-probe (say, main's before a change) measured in the
same run, cold and warm, in columns of its own: before/after figures paired.
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
from binary_size import describe  # noqa: E402
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


def lang_binaries(build):
    """The Go and Rust programs the build made (tests/lang, issue 28) and the C
    programs of their size (bench/CMakeLists.txt)."""
    fixtures = os.path.join(build, "tests/lang/fixtures")
    return [os.path.join(fixtures, name)
            for name in ("go_names", "c_sized_go_names", "rust_names_O1", "c_sized_rust_names_O1")]


def lang_specs(build):
    """-F and -D on each of lang_binaries, ours beside perf's in the same run;
    a C program's rows after the program whose size it has."""
    go, c_go, rust, c_rust = lang_binaries(build)
    return [
        (go, "-F", "F", []),
        (go, "entry main.Price", "D", ["main.Price"]),
        (go, "entry main.(*Shop).Restock", "D", ["main.(*Shop).Restock"]),
        (c_go, "-F", "F", []),
        (c_go, "entry target", "D", ["target"]),  # in the first unit
        (c_go, "entry u44_f31", "D", ["u44_f31"]),  # in the last
        (rust, "-F", "F", []),
        (rust, "entry names::price", "D", ["names::price"]),
        # perf reads "names::price" as FUNC:LINE and fails at once; by the DIE's
        # short name it finds the function, so this row compares finding work.
        (rust, "entry price", "D", ["price"]),
        (c_rust, "-F", "F", []),
        (c_rust, "entry target", "D", ["target"]),
        (c_rust, "entry u64_f14", "D", ["u64_f14"]),
    ]


def print_sizes(build):
    for binary in lang_binaries(build):
        if os.path.exists(binary):
            print(f"{short(binary)}: {describe(binary)}")


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


def measure_ours(tool, target, what, spec_args, reps, envs, rss):
    """(cold, warm) measurements of one kprobe-probe: cold with --no-cache, warm
    after a run that writes the cache files when they are missing."""
    env_warm, env_cold = envs
    cold = measure(command(tool, target, what, spec_args, ["--no-cache"]), reps, env_cold, rss=rss)
    run(command(tool, target, what, spec_args), env_warm)
    return cold, measure(command(tool, target, what, spec_args), reps, env_warm, rss=rss)


def compare(args, ours, envs, base_envs):
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
        (cw, cm, cc, ctext), (ww, wm, wc, wtext) = measure_ours(ours, target, what, spec_args, reps, envs, rss)
        note = verdict(what, (pc, ptext), (cc, ctext), (wc, wtext))
        if "COLD/WARM" in note:
            failed.append(f"{name}: {note}")
        if args.verbose and ("DIFFER" in note or "differs" in note):
            print(f"{name}:\n perf: {definitions(ptext)}\n cold: {definitions(ctext)}\n warm: {definitions(wtext)}",
                  file=sys.stderr)
        base = []
        if args.baseline:
            (bc, *_), (bw, *_) = measure_ours(args.baseline, target, what, spec_args, reps, base_envs, False)
            base = [fmt_time(bc), fmt_time(bw), ratio(bc, pw), ratio(bw, pw)]
        rows.append([short(binary), label, fmt_time(pw)] + base +
                    [fmt_time(cw), fmt_time(ww), ratio(cw, pw), ratio(ww, pw),
                     f"{pm / 1024:.0f}", f"{cm / 1024:.0f}", f"{wm / 1024:.0f}", note])
        ratios.append((cw / pw, ww / pw, cm / pm if pm else 0))
        print(f"  {name}: perf {fmt_time(pw)} ours {fmt_time(cw)}/{fmt_time(ww)}", file=sys.stderr)
    headers = ["binary", "spec", "perf"]
    if args.baseline:
        headers += ["base cold", "base warm", "base cold/perf", "base warm/perf"]
    headers += ["ours cold", "ours warm", "cold/perf", "warm/perf", "perf MB", "cold MB", "warm MB", "definitions"]
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
    p.add_argument("--baseline", type=os.path.abspath)
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
        print(f"{machine_line()}; medians of {1 if args.smoke else args.reps} runs")
        print_sizes(args.build)
        failed = compare(args, ours, cache_envs(work), cache_envs(os.path.join(work, "baseline")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failed:
        print(f"user_compare: {f}", file=sys.stderr)
    sys.exit(1 if failed and args.smoke else 0)


if __name__ == "__main__":
    main()
