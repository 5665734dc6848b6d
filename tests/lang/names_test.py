#!/usr/bin/env python3
"""Function names of Go, Rust and C++ programs (tests/lang fixtures) as each
language's own tools print them, in -F and in specs (-D): the oracles are
`go tool nm`, perf probe 6.1's -F, and rustfilt's spellings that LLVM's
demangler and perf agree on. No root needed. Usage: names_test.py KPP FIXTURES"""
import os
import re
import shutil
import signal
import subprocess
import sys

# A stop by SIGTERM (a user's kill) still runs the `finally` blocks that
# remove this test's probes: Python's default for it ends the process at once.
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))

KPP, FIX = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def run(*args, env=None):
    return subprocess.run(list(args), capture_output=True, text=True, env=env)


def kpp_funcs(binary):
    r = run(KPP, "-x", binary, "-F")
    check(r.returncode == 0, f"-F on {os.path.basename(binary)} exits 0 ({r.stderr.strip()[:200]})")
    return set(r.stdout.splitlines())


def fixture(name):
    path = os.path.join(FIX, name)
    if not os.path.exists(path):
        print(f"SKIP: {name} was not built (its compiler is missing: scripts/install-deps.sh --tests)")
        return None
    return path


def go_tool_text_names(binary):
    go = shutil.which("go", path="/usr/lib/go-1.19/bin:/usr/lib/go/bin:" + os.environ.get("PATH", ""))
    env = dict(os.environ, GOCACHE="/tmp/kpp-lang-gocache", GOENV="off", GOPROXY="off", HOME="/tmp")
    r = run(go, "tool", "nm", binary, env=env)
    assert r.returncode == 0, r.stderr
    return {line.split(None, 2)[2] for line in r.stdout.splitlines() if len(line.split(None, 2)) == 3
            and line.split(None, 2)[1] in ("T", "t")}


def definition(binary, spec):
    r = run(KPP, "-x", binary, "-D", spec)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def event_of(def_line):
    m = re.match(r"[pr]:([^/]+)/(\S+) ", def_line)
    return m.group(2) if m else None


def go_names():
    for name in ("go_names", "go_names_noopt"):
        binary = fixture(name)
        if not binary:
            return
        ours = kpp_funcs(binary)
        go = {n for n in go_tool_text_names(binary) if not n.startswith("_")}  # perf's -F filter leaves out '_' names
        check(ours == go, f"-F on {name} lists what go tool nm lists as text ({len(ours)} vs {len(go)}; "
                          f"only ours: {sorted(ours - go)[:5]}, only go's: {sorted(go - ours)[:5]})")
        for fn in ("main.Price", "main.(*Shop).Restock", "main.Shop.Count", "main.Max[go.shape.int_0]", "main.main"):
            check(fn in ours, f"-F on {name} lists {fn}")
        check("main" not in ours, f"-F on {name} does not list a cut 'main'")
        events = {}
        for spec in ("main.Price", "main.Greet", "main.(*Shop).Restock", "main.Shop.Count"):
            rc, out, err = definition(binary, spec)
            check(rc == 0 and out.startswith("p:"), f"-D '{spec}' on {name}: {out or err}")
            events[spec] = event_of(out.splitlines()[0]) if out else None
        check(events["main.Price"] == "main_Price", f"main.Price's event is main_Price (got {events['main.Price']})")
        check(events["main.(*Shop).Restock"] == "main_Shop_Restock",
              f"main.(*Shop).Restock's event is main_Shop_Restock (got {events['main.(*Shop).Restock']})")
        check(len(set(events.values())) == len(events), f"distinct events on {name}: {events}")
        perf = run("perf", "probe", "-x", binary, "-F")
        if perf.returncode == 0:
            theirs = set(perf.stdout.splitlines())
            check(ours <= theirs, f"perf -F on {name} lists every name ours does ({len(ours)} of perf's "
                                  f"{len(theirs)}; perf also lists data symbols such as main..inittask)")


def file_offset(binary, address):
    """The file offset of link-time `address`, by the program's LOAD segments (readelf)."""
    for line in run("readelf", "-lW", binary).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            off, vaddr, filesz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
            if vaddr <= address < vaddr + filesz:
                return address - vaddr + off
    return None


def go_stripped():
    stripped, oracle = fixture("go_names_stripped"), fixture("go_gosym_names")
    if not stripped or not oracle:
        return
    ours = kpp_funcs(stripped)
    # Go's own reading of the table (debug/gosym); -F leaves out names starting with '_', as perf's does.
    table = [l.split(" ", 1) for l in run(oracle, stripped).stdout.splitlines()]
    go = {name for _, name in table if not name.startswith("_")}
    check(ours == go, f"-F on the stripped Go program is its .gopclntab as Go's debug/gosym reads it "
                      f"({len(ours)} vs {len(go)}; only ours: {sorted(ours - go)[:5]}, only Go's: {sorted(go - ours)[:5]})")
    entries = {}
    for entry, name in table:
        entries.setdefault(name, []).append(int(entry, 16))
    # Placed after Go's stack check (where the unstripped build's prologue_end
    # is): within the function's first bytes, at the unstripped build's address.
    unstripped = fixture("go_names")
    for spec, dwarf_specs in (("main.Price", ["main.Price"]), ("main.(*Shop).Restock", ["main.(*Shop).Restock"]),
                              ("main.Max[...]", ["main.Max[go.shape.int_0]", "main.Max[go.shape.float64_0]"]),
                              ("runtime.main", ["runtime.main"]), ("main.Split", ["main.Split"])):
        rc, out, err = definition(stripped, spec + " %ax")
        got = sorted(int(m, 16) for m in re.findall(r":(0x[0-9a-f]+) ", out))
        starts = sorted(file_offset(stripped, a) for a in entries.get(spec, []))
        check(rc == 0 and starts and len(got) == len(starts) and all(s <= g < s + 24 for s, g in zip(starts, got)),
              f"-D '{spec} %ax' on the stripped program at Go's entries ({[hex(w) for w in starts]}) "
              f"or just past their stack check: {out or err}")
        if unstripped:
            outu = "".join(definition(unstripped, d)[1] + "\n" for d in dwarf_specs)
            want = sorted(int(m, 16) for m in re.findall(r":(0x[0-9a-f]+) ", outu))
            check(got == want, f"-D '{spec}' on the stripped program is where the unstripped build's "
                                            f"prologue_end puts it ({[hex(w) for w in want]}): {out or err}")
    rc, out, err = definition(stripped, "main.Price n")
    check(rc != 0 and "DWARF" in err, f"a variable by name on the stripped program is refused for want of DWARF: {err[:150]}")


def rust_names():
    for name in ("rust_names_O0", "rust_names_O1", "rust_names_O2", "rust_names_v0_O0", "rust_names_v0_O2"):
        binary = fixture(name)
        if not binary:
            return
        ours = kpp_funcs(binary)
        # binutils' nm -C (libiberty's Rust demangler, rustc-demangle's rules): the names of the code symbols.
        nm = {l.split(None, 2)[2] for l in run("nm", "-C", "--defined-only", binary).stdout.splitlines()
              if len(l.split(None, 2)) == 3 and l.split(None, 2)[1] in "tTwWiI"}
        nm = {n for n in nm if not n.startswith("_")}  # -F leaves out '_' names, as perf's does
        check(ours == nm, f"-F on {name} is nm -C's code symbols ({len(ours)} vs {len(nm)}; "
                          f"only ours: {sorted(ours - nm)[:4]}, only nm's: {sorted(nm - ours)[:4]})")
        perf = run("perf", "probe", "-x", binary, "-F")
        if perf.returncode == 0:
            # perf's -F lists data too (DW.ref.*, anon.*.llvm.*, core::num::flt2dec::...::POW10).
            theirs = set(perf.stdout.splitlines())
            check(ours <= theirs, f"perf -F on {name} lists every name ours does ({len(ours)} of perf's {len(theirs)}; "
                                  f"only ours: {sorted(ours - theirs)[:4]})")
        check("names::price" in ours and not any(re.search(r"::h[0-9a-f]{16}$", n) for n in ours),
              f"-F on {name} prints names::price, no hash")
        rc, out, err = definition(binary, "names::price")
        check(rc == 0 and event_of(out.splitlines()[0]) == "names_price", f"-D 'names::price' on {name}: {out or err}")
        if "v0" not in name:
            sym = next(l.split()[2] for l in run("nm", binary).stdout.splitlines() if "5names5price17h" in l)
            hashed = "names::price::" + re.search(r"17(h[0-9a-f]{16})E", sym).group(1)
            rc2, out2, err2 = definition(binary, hashed)
            check(rc2 == 0 and out2 == out, f"-D '{hashed}' (the hash spelling) is names::price's: {out2 or err2}")
            wrong = hashed[:-1] + ("0" if hashed[-1] != "0" else "1")
            rc3, _, err3 = definition(binary, wrong)
            check(rc3 != 0, f"-D '{wrong}' (another hash) is refused: {err3[:120]}")
        rc4, out4, err4 = definition(binary, "Shop::add")
        check(rc4 == 0, f"-D 'Shop::add' on {name}: {out4 or err4}")


def cxx_names():
    for name in ("cxx_names_O0", "cxx_names_O2"):
        binary = fixture(name)
        if not binary:
            return
        ours = kpp_funcs(binary)  # C++ as before this issue (demangled with parameters, as LLVM prints them)
        check("shop::price(int, double)" in ours, f"-F on {name} lists shop::price(int, double)")
        rc, out, err = definition(binary, "shop::price")
        check(rc == 0 and event_of(out.splitlines()[0]) == "shop_price", f"-D 'shop::price' on {name}: {out or err}")


def go_line_ranges():
    """-L on a Go function: perf reads 'main.Split' as a file (it has a '.');
    no source file has that name and the function exists, so it is the function.
    The oracle is the source file itself: Split's return line is listed
    (numbered from the function's first line with code: Go 1.19 gives no
    DW_AT_decl_line), and nothing of another function."""
    binary = fixture("go_names")
    if not binary:
        return
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "go", "names.go")).read().splitlines()
    decl = next(i for i, l in enumerate(src, 1) if l.startswith("func Split("))
    body = src[decl]  # the line after the declaration: "return n / 7, n % 7"
    for spec in ("main.Split", "main.Split:0", "main.Split:0-1"):
        r = run(KPP, "-x", binary, "-L", spec)
        lines = r.stdout.splitlines()
        numbered = [l.split(None, 1) for l in lines[1:] if l.strip() and l.split(None, 1)[0].isdigit()]
        rel = [int(n) for n, text in numbered if text.strip() == body.strip()]
        check(r.returncode == 0 and lines and lines[0].startswith("<main.Split@") and rel == [0] and
              len(numbered) == 1, f"-L '{spec}' lists main.Split's one line, its return ({r.stdout[:300]} {r.stderr[:200]})")
    r = run(KPP, "-x", binary, "-L", "names.go:%d" % (decl + 1))
    check(r.returncode == 0 and any(body.strip() in l for l in r.stdout.splitlines()),
          f"-L 'names.go:{decl + 1}' is still the file's line ({r.stdout[:200]} {r.stderr[:200]})")
    go_function_lines(binary, src)
    r = run(KPP, "-x", binary, "-L", "main.NoSuch")
    check(r.returncode != 0 and "no source file and no function 'main.NoSuch'" in r.stderr,
          f"-L 'main.NoSuch' says neither a file nor a function has that name: {r.stderr[:200]}")


def go_function_lines(binary, src):
    """FUNC:RLN on a Go name in probe specs (-D, --add): perf reads 'main.Split:0'
    as a source file without a line and refuses it; it is main.Split's entry,
    and 'main.(*Shop).Restock:1' the line after its first, as names.go:LINE is."""
    rc, entry, err = definition(binary, "main.Split")
    rc0, zero, err0 = definition(binary, "main.Split:0")
    check(rc0 == 0 and zero == entry, f"-D 'main.Split:0' is main.Split's entry ({zero or err0}; {entry or err})")
    first = next(i for i, l in enumerate(src, 1) if l.startswith("func (s *Shop) Restock("))  # Go: no decl_line, its first row's
    rc1, line1, err1 = definition(binary, "main.(*Shop).Restock:1")
    rcf, by_file, errf = definition(binary, "names.go:%d" % (first + 1))
    addr = lambda out: re.findall(r" (\S+:0x[0-9a-f]+)", out)
    check(rc1 == 0 and addr(line1) and addr(line1) == addr(by_file),
          f"-D 'main.(*Shop).Restock:1' is names.go:{first + 1} ({line1 or err1}; {by_file or errf})")
    added = run(KPP, "-n", "-x", binary, "--add", "kpp28b:split=main.Split:0 n", "--add", "kpp28b:restock=main.(*Shop).Restock:1")
    check(added.returncode == 0, f"--add 'main.Split:0 n' and 'main.(*Shop).Restock:1' (dry run): {added.stderr.strip()[:300]}")
    rcc, _, errc = definition(binary, "names.c:0")
    check(rcc != 0 and "File always requires line number or lazy pattern." in errc,
          f"-D 'names.c:0' (a source file's name) keeps perf's refusal: {errc[:200]}")


go_names()
go_line_ranges()
go_stripped()
rust_names()
cxx_names()
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
