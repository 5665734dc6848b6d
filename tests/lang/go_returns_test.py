#!/usr/bin/env python3
"""Return probes on Go never crash the program (tests/lang/go/deep.go): Deep
recurses with big frames (the goroutine's stack is copied to grow) and runs
the collector at the bottom (every frame's return address is walked), under
an entry probe and a return probe. The program must exit 0, and each probe
must have been hit once per call and return, as the program counts them
itself, the stripped build's entry probe too (placed past Go's stack check). A uretprobe on the same function (what perf probe installs) must
kill it: the control, which shows the stress is one. Needs root and uprobes; skips (77) otherwise.
Usage: go_returns_test.py KPP FIXTURES"""
import os
import re
import signal
import subprocess
import sys

# A stop by SIGTERM (a user's kill) still runs the `finally` blocks that
# remove this test's probes: Python's default for it ends the process at once.
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))

KPP, FIX = sys.argv[1], sys.argv[2]
TRACING = "/sys/kernel/tracing"
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


if os.geteuid() != 0:
    skip("needs root (uprobes)")
probe = subprocess.run([KPP, "-x", os.path.join(FIX, "go_deep"), "-D", "main.Deep%return"], capture_output=True, text=True)
if "built without an instruction decoder" in probe.stderr:
    skip("this build has no instruction decoder (cmake -DKPP_X86_DISASSEMBLER=ON): Go return probes are refused")
if not os.path.exists(TRACING + "/uprobe_events"):
    skip("no uprobe_events in " + TRACING)


def hits(binary, events):
    """event -> hits summed over its probe points, from uprobe_profile ("PATH EVENT HITS" lines)."""
    out = {}
    with open(TRACING + "/uprobe_profile") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == binary and parts[1] in events:
                out[parts[1]] = out.get(parts[1], 0) + int(parts[2])
    return out


def set_enabled(group, on):
    path = f"{TRACING}/events/{group}/enable"
    if os.path.exists(path):
        with open(path, "w") as f:
            f.write("1" if on else "0")


def remove(group):
    set_enabled(group, False)
    run(KPP, "-q", "-d", group + ":*")


def probe_deep(name, rounds=3, depth=300):
    binary = os.path.join(FIX, name)
    if not os.path.exists(binary):
        print(f"SKIP: {name} was not built (golang-go missing)")
        return
    group = f"kpp28go_{os.getpid()}"
    try:
        entry, ret = f"deep{os.getpid()}", f"deep{os.getpid()}_ret"
        add = run(KPP, "-x", binary, "-a", f"{group}:{entry}=main.Deep %ax", "-a", f"{group}:{ret}=main.Deep%return $retval")
        check(add.returncode == 0, f"{name}: add main.Deep and main.Deep%return ({add.stderr.strip()[:300]})")
        if add.returncode != 0:
            return
        listed = run(KPP, "-x", binary, "-D", "main.Deep%return")
        check(listed.returncode == 0 and listed.stdout.startswith("p:") and "r:" not in listed.stdout,
              f"{name}: main.Deep%return is uprobes on return instructions, no uretprobe:\n{listed.stdout.strip()}")
        set_enabled(group, True)
        prog = run(binary, str(rounds), str(depth), timeout=120)
        set_enabled(group, False)
        check(prog.returncode == 0, f"{name}: exits 0 under the probes (exit {prog.returncode}: {prog.stderr.strip()[:300]})")
        m = re.search(r"returns (\d+)", prog.stdout)
        counted = int(m.group(1)) if m else -1
        h = hits(binary, (entry, ret))
        check(counted == rounds * (depth + 1), f"{name}: the program counted {counted} returns")
        check(h.get(ret, -1) == counted, f"{name}: main.Deep%return hit {h.get(ret)} times, the program's returns: {counted}")
        # Placed past Go's stack check (by prologue_end, or, stripped, by the
        # decoder): a call whose stack grew, which the runtime starts again, is counted once.
        check(h.get(entry, -1) == counted, f"{name}: main.Deep hit {h.get(entry)} times, the program's calls: {counted}")
        entry_hits[name] = h.get(entry, -1)
    finally:
        remove(group)
        with open(TRACING + "/uprobe_events") as f:
            check(group not in f.read(), f"{name}: every probe of {group} removed")


def write_events(line):
    """Appends one definition to uprobe_events (tracefs takes no seek: no Python "a" mode)."""
    fd = os.open(TRACING + "/uprobe_events", os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def control_uretprobe(name):
    """What a uretprobe does to the same program (perf probe's r: definition at
    the entry): the stress must kill it, or it proves nothing above."""
    binary = os.path.join(FIX, name)
    if not os.path.exists(binary):
        return
    d = run(KPP, "-x", binary, "-D", "main.Deep+0")
    m = re.search(r" (\S+:0x[0-9a-f]+)", d.stdout)
    check(m is not None, f"control: the entry's definition ({d.stdout.strip() or d.stderr.strip()})")
    if not m:
        return
    group = f"kpp28ctl_{os.getpid()}"
    try:
        write_events(f"r:{group}/deep {m.group(1)}\n")
        set_enabled(group, True)
        prog = run(binary, "3", "300", timeout=120)
        first = (prog.stderr.strip().splitlines() or [""])[0][:160]
        check(prog.returncode != 0, f"control: a uretprobe on main.Deep kills {name} (exit {prog.returncode}: {first})")
    finally:
        set_enabled(group, False)
        try:
            write_events(f"-:{group}/deep\n")
        except OSError:
            pass


def results_by_name(name, loops=9):
    """Results read at the returns: main.Split(i) returns (i/7, i%7) and
    main.Greet returns "hello corner" (12 bytes), as the program computes them."""
    binary = os.path.join(FIX, name)
    if not os.path.exists(binary):
        return
    group = f"kpp28res_{os.getpid()}"
    try:
        add = run(KPP, "-q", "-x", binary, "-a", f"{group}:split_ret=main.Split%return $retval quot rem",
                  "-a", f"{group}:greet_ret=main.Greet%return len=~r0.len")
        check(add.returncode == 0, f"{name}: add the results' probes ({add.stderr.strip()[:300]})")
        if add.returncode != 0:
            return
        traced = run(KPP, "trace", "-e", f"{group}:*", "--", binary, str(loops), timeout=120)
        got = [tuple(int(v) for v in m) for m in re.findall(r"split_ret arg1=(-?\d+) quot=(-?\d+) rem=(-?\d+)", traced.stdout)]
        want = [(i // 7, i // 7, i % 7) for i in range(loops)]
        check(got == want, f"{name}: main.Split%return $retval quot rem read {got}, the program's {want}")
        lens = re.findall(r"greet_ret len=(\d+)", traced.stdout)
        check(lens == ["12"], f"{name}: main.Greet%return ~r0.len read {lens}, len(\"hello corner\") is 12")
    finally:
        remove(group)


results_by_name("go_names")
results_by_name("go_names_noopt")
entry_hits = {}
for fixture in ("go_deep", "go_deep_noopt", "go_deep_stripped"):
    probe_deep(fixture)
if "go_deep" in entry_hits and "go_deep_stripped" in entry_hits:
    check(entry_hits["go_deep_stripped"] == entry_hits["go_deep"] >= 0,
          f"main.Deep's entry hits: stripped {entry_hits['go_deep_stripped']}, with DWARF {entry_hits['go_deep']}")
control_uretprobe("go_deep")
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
