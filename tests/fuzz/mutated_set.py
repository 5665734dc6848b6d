#!/usr/bin/env python3
"""The fuzz set (issue 12, item 4): hostile debug info costs bounded time and memory.

Builds a few seed programs (tests/fuzz/seeds/tiny.c with gcc and clang, DWARF 4 and 5,
a build-id note, compressed debug sections (zlib and, where objcopy has it, zstd), and
split DWARF packed into a .dwp), then makes COUNT mutated copies of them, each damaged
where a parser trusts a number: ELF and program headers, section headers (offsets,
sizes, links), compression headers (the claimed size), note headers, DWARF unit
lengths and the .dwp's unit index, or anywhere (bit flips, cut short). Every copy is
put through kprobe-probe as a user would (-D with variables, and -F -L -V in one run),
and each run must
  - end within --time-limit seconds (10),
  - at a peak RSS of at most --rss-limit-mib MiB (512),
  - with exit status 0 or 1 (no signal: no crash, no abort), and not with the error the
    supervising process prints for a crash of the working one (src/cli/supervisor.h).
The mutations come from --seed alone (the seeds are built under fixed paths, see BUILT_IN), so a
failure is reproduced by the same seed and count on any checkout with the same compilers; failing
inputs are also copied to --keep DIR with the command that failed.

Exit status: 0 all passed, 1 a case failed, 77 nothing to test (no compiler).
"""
import argparse
import hashlib
import os
import random
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_SOURCE = os.path.join(HERE, "seeds", "tiny.c")

# Numbers a parser should not trust: around the 32-bit and 64-bit edges, and "larger than the file".
INTERESTING = [0, 1, 2, 4, 7, 8, 0x7F, 0x80, 0xFF, 0x100, 0xFFF, 0x1000, 0x7FFF, 0xFFFF, 0x10000,
               0x7FFFFFFF, 0x80000000, 0xFFFFFFF0, 0xFFFFFFFF, 0x100000000, 0x200000000,
               0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFF0, 0xFFFFFFFFFFFFFFFF]


# ---------------------------------------------------------------- seeds

def run_quiet(argv, cwd=None):
    return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd).returncode == 0


# Where the seeds say they were built: the same on every machine and in every build tree, so that the
# seeds' bytes (DW_AT_name, DW_AT_comp_dir, the build-id that hashes them) and with them every mutation
# depend on --seed and the compilers alone.
BUILT_IN = "/kpp-fuzz"


def build_seeds(work):
    """Seed programs: [(name, elf path, dwp path or None)], built in `work` from a copy of tiny.c under
    relative names, their paths mapped to BUILT_IN."""
    seeds = []
    shutil.copy(SEED_SOURCE, os.path.join(work, "tiny.c"))
    mapped = [f"-fdebug-prefix-map={work}={BUILT_IN}"]
    base = ["-nostdlib", "-static", "-Wl,-z,noseparate-code", "-o"]
    compilers = [c for c in ("gcc", "clang") if shutil.which(c)]
    for cc in compilers:
        for opt in ("-O0", "-O2"):
            for dw in ("4", "5"):
                name = f"{cc}{opt}_dw{dw}"
                if run_quiet([cc, opt, f"-gdwarf-{dw}", "-Wl,--build-id"] + mapped + base + [name, "tiny.c"], cwd=work):
                    seeds.append((name, os.path.join(work, name), None))
    plain = [s for s in seeds if s[0].startswith("gcc-O2")] or seeds[:1]
    # Compressed debug sections: the compression header claims the size to allocate.
    for _, path, _ in plain[:1]:
        for kind in ("zlib", "zstd"):
            out = path + "_" + kind
            if run_quiet(["objcopy", f"--compress-debug-sections={kind}", path, out]):
                seeds.append((os.path.basename(out), out, None))
    # Split DWARF in a .dwp: the unit index (.debug_cu_index) is trusted by LLVM. Packed from the .dwo
    # itself (its skeleton names it under BUILT_IN, which does not exist).
    dwp_tool = shutil.which("llvm-dwp-19") or shutil.which("llvm-dwp")
    if dwp_tool and "clang" in compilers:
        for dw in ("4", "5"):
            out = f"split_dw{dw}"
            ok = run_quiet(["clang", "-O1", f"-gdwarf-{dw}", "-gsplit-dwarf"] + mapped + ["-c", "-o", out + ".o", "tiny.c"],
                           cwd=work)
            ok = ok and run_quiet(["clang", "-nostdlib", "-static", "-Wl,--build-id", "-o", out, out + ".o"], cwd=work)
            ok = ok and run_quiet([dwp_tool, out + ".dwo", "-o", out + ".dwp"], cwd=work)
            if ok:
                seeds.append((out, os.path.join(work, out), os.path.join(work, out + ".dwp")))
    return seeds


# ---------------------------------------------------------------- ELF layout

class Elf:
    """Where the fields of a little-endian ELF64 file are (enough to aim mutations)."""

    def __init__(self, data):
        self.ok = len(data) >= 64 and data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
        self.sections = []  # (header offset, name, offset, size)
        self.phdrs = []     # (header offset, type, offset, size)
        if not self.ok:
            return
        self.shoff, = struct.unpack_from("<Q", data, 0x28)
        self.phoff, = struct.unpack_from("<Q", data, 0x20)
        phnum, = struct.unpack_from("<H", data, 0x38)
        shnum, = struct.unpack_from("<H", data, 0x3C)
        shstrndx, = struct.unpack_from("<H", data, 0x3E)
        for i in range(phnum):
            at = self.phoff + i * 56
            if at + 56 > len(data):
                break
            p_type, = struct.unpack_from("<I", data, at)
            p_offset, = struct.unpack_from("<Q", data, at + 8)
            p_filesz, = struct.unpack_from("<Q", data, at + 32)
            self.phdrs.append((at, p_type, p_offset, p_filesz))
        raw = []
        for i in range(shnum):
            at = self.shoff + i * 64
            if at + 64 > len(data):
                break
            sh_name, = struct.unpack_from("<I", data, at)
            sh_offset, sh_size = struct.unpack_from("<QQ", data, at + 24)
            raw.append((at, sh_name, sh_offset, sh_size))
        names = b""
        if shstrndx < len(raw):
            _, _, o, s = raw[shstrndx]
            names = data[o:o + s]
        for at, sh_name, o, s in raw:
            end = names.find(b"\0", sh_name)
            name = names[sh_name:end].decode("latin-1") if sh_name < len(names) and end >= 0 else ""
            self.sections.append((at, name, o, s))

    def section(self, rng, prefix):
        found = [s for s in self.sections if s[1].startswith(prefix) and s[3] > 0]
        return rng.choice(found) if found else None


def put(data, at, width, value):
    if 0 <= at and at + width <= len(data):
        data[at:at + width] = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")


def interesting(rng, near=None):
    if near is not None and rng.random() < 0.3:
        return near + rng.choice([-1, 1, 2, 0x1000, 1 << 20, 1 << 32])
    return rng.choice(INTERESTING) if rng.random() < 0.8 else rng.getrandbits(rng.choice([8, 16, 32, 64]))


# ---------------------------------------------------------------- mutations

def flip_bytes(data, rng, elf):
    for _ in range(rng.randint(1, 16)):
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)


def cut_short(data, rng, elf):
    del data[rng.randrange(len(data) // 4, len(data)):]


def elf_header(data, rng, elf):
    field = rng.choice([(0x20, 8), (0x28, 8), (0x36, 2), (0x38, 2), (0x3A, 2), (0x3C, 2), (0x3E, 2), (0x12, 2)])
    put(data, field[0], field[1], interesting(rng, len(data)))


def section_header(data, rng, elf):
    if not elf.sections:
        return flip_bytes(data, rng, elf)
    at, _, offset, size = rng.choice(elf.sections)
    field = rng.choice([(0, 4), (4, 4), (8, 8), (24, 8), (32, 8), (40, 4), (44, 4), (48, 8), (56, 8)])
    put(data, at + field[0], field[1], interesting(rng, len(data) if field[0] in (24, 32) else None))


def program_header(data, rng, elf):
    notes = [p for p in elf.phdrs if p[1] == 4]  # PT_NOTE
    chosen = rng.choice(notes if notes and rng.random() < 0.6 else elf.phdrs or [None])
    if chosen is None:
        return flip_bytes(data, rng, elf)
    field = rng.choice([(8, 8), (16, 8), (32, 8), (40, 8), (48, 8)])
    put(data, chosen[0] + field[0], field[1], interesting(rng, len(data)))


def note_contents(data, rng, elf):
    found = elf.section(rng, ".note")
    if not found:
        return program_header(data, rng, elf)
    _, _, offset, size = found
    put(data, offset + rng.choice([0, 4, 8]), 4, interesting(rng))  # namesz, descsz, type


def compression_header(data, rng, elf):
    found = [s for s in elf.sections if s[1].startswith(".debug") and s[3] >= 24 and data[s[2]:s[2] + 4] in
             (b"\x01\0\0\0", b"\x02\0\0\0")] if elf.ok else []
    if not found:
        return dwarf_word(data, rng, elf)
    _, _, offset, size = rng.choice(found)
    field = rng.choice([(0, 4), (8, 8), (8, 8), (16, 8)])  # ch_type, ch_size (twice as often), ch_addralign
    put(data, offset + field[0], field[1], interesting(rng, size * 4))


def dwarf_word(data, rng, elf):
    prefix = rng.choice([".debug_info", ".debug_line", ".debug_abbrev", ".debug_str_offsets", ".debug_rnglists",
                         ".debug_loclists", ".debug_addr", ".debug_aranges", ".debug_cu_index", ".debug_tu_index",
                         ".debug_names", ".debug_frame", ".eh_frame", ".debug"])
    found = elf.section(rng, prefix)
    if not found:
        return flip_bytes(data, rng, elf)
    _, _, offset, size = found
    # Headers are at the start of a section (unit lengths, versions, table sizes, index rows).
    at = offset + (rng.randrange(min(size, 64)) if rng.random() < 0.6 else rng.randrange(size))
    put(data, at, rng.choice([1, 2, 4, 8]), interesting(rng, size))


MUTATORS = [flip_bytes, cut_short, elf_header, section_header, program_header, note_contents,
            compression_header, dwarf_word, dwarf_word, dwarf_word]


def mutate(data, rng):
    out = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if not out:
            break
        rng.choice(MUTATORS)(out, rng, Elf(bytes(out)))
    return bytes(out)


# ---------------------------------------------------------------- running

def limit_child():
    # A safety net for the machine, far above the bound checked: address space, not RSS.
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_case(argv, time_limit, env):
    """(timed out, seconds, peak RSS in KiB, exit code or -signal, stderr)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                preexec_fn=limit_child, env=env)
        # Reaped here with wait4, for the child's own peak RSS (ru_maxrss).
        timed_out, status, usage = False, 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > time_limit:
                timed_out = True
                os.kill(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.005)
        seconds = time.monotonic() - start
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code
        err.seek(0)
        return timed_out, seconds, usage.ru_maxrss, code, err.read()


def patched(path, out, edit):
    """A copy of the ELF at `path` with `edit(bytearray, Elf)` applied, written to `out`."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    edit(data, Elf(bytes(data)))
    with open(out, "wb") as f:
        f.write(data)
    return out


def claim_8gb(data, elf):
    for at, name, offset, size in elf.sections:
        if name == ".debug_info":
            put(data, offset + 8, 8, 8 << 30)  # Elf64_Chdr.ch_size


def wrap_note(data, elf):
    for at, p_type, offset, size in elf.phdrs:
        if p_type == 4:
            put(data, at + 8, 8, (1 << 64) - 16)  # p_offset: plus p_filesz, past 2^64
            put(data, at + 32, 8, 64)


def fixed_cases(seeds, work):
    """(what, -x target, words the message must hold): inputs refused up front, with a message."""
    fifo = os.path.join(work, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    cases = [("/dev/zero", "/dev/zero", "is a character device"),
             ("/dev/urandom", "/dev/urandom", "is a character device"),
             ("a FIFO", fifo, "is a FIFO"),
             ("a directory", work, "is a directory")]
    zlib = [s for s in seeds if s[0].endswith("_zlib")]
    if zlib:
        cases.append(("a compressed .debug_info claiming 8 GiB", patched(zlib[0][1], os.path.join(work, "claims8g"), claim_8gb),
                      "bytes uncompressed from"))
    plain = [s for s in seeds if s[2] is None and not s[0].endswith(("_zlib", "_zstd"))]
    if plain:
        cases.append(("a PT_NOTE whose offset wraps", patched(plain[0][1], os.path.join(work, "note_wraps"), wrap_note),
                      "note segment"))
    return cases


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tool", required=True)
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--time-limit", type=float, default=10.0)
    p.add_argument("--rss-limit-mib", type=int, default=512)
    p.add_argument("--keep", help="copy failing inputs here")
    p.add_argument("--work", help="a directory for the seeds and cases (default: a temporary one)")
    p.add_argument("--replay", action="append", default=[],
                   help="a directory of inputs that once failed (each with its PROG.dwp when it had one), "
                        "run first under the same bounds")
    args = p.parse_args()

    work = args.work or tempfile.mkdtemp(prefix="kpp-fuzzset-")
    os.makedirs(work, exist_ok=True)
    try:
        seeds = build_seeds(work)
        if not seeds:
            print("SKIP: no seed could be built (gcc/clang missing)")
            return 77
        print(f"{len(seeds)} seeds: " + ", ".join(s[0] for s in seeds))
        env = dict(os.environ)
        env["XDG_CACHE_HOME"] = os.path.join(work, "cache")  # the cache is the other test's subject
        rng = random.Random(args.seed)
        failures, worst_rss, worst_time, statuses = [], (0, ""), (0.0, ""), {}
        for what, target, words in fixed_cases(seeds, work):
            for argv in ([args.tool, "-x", target, "-F"], [args.tool, "-x", target, "-D", "main"]):
                timed_out, seconds, rss, code, err = run_case(argv, args.time_limit, env)
                text = err.decode("utf-8", "replace")
                ok = not timed_out and code == 1 and words in text and rss <= args.rss_limit_mib * 1024
                print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {code}, {seconds:.2f} s, {rss >> 10} MiB: "
                      f"{text.strip().splitlines()[0] if text.strip() else '(no message)'}", flush=True)
                if not ok:
                    failures.append(f"{what}: {' '.join(argv[1:])}: wanted exit 1 and '{words}'")
        case_dir = os.path.join(work, "case")
        os.makedirs(case_dir, exist_ok=True)

        def check(argv, label):
            nonlocal worst_rss, worst_time
            timed_out, seconds, rss, code, err = run_case(argv, args.time_limit, env)
            statuses[code] = statuses.get(code, 0) + 1
            if rss > worst_rss[0]:
                worst_rss = (rss, label)
            if seconds > worst_time[0]:
                worst_time = (seconds, label)
            why = None
            if timed_out:
                why = f"did not end within {args.time_limit:g} s"
            elif code not in (0, 1):
                why = f"exit status {code}" + (f" ({signal.Signals(-code).name})" if code < 0 else "")
            elif b"error: the run crashed with" in err or b"error: the run was killed by" in err:
                # Reported as an error by the supervising process (src/cli/supervisor.h):
                # still a fault the checks before LLVM should have caught.
                why = "the working process crashed"
            elif rss > args.rss_limit_mib * 1024:
                why = f"peak RSS {rss >> 10} MiB > {args.rss_limit_mib} MiB"
            if why:
                last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
                failures.append(f"{label}: {why}: {' '.join(argv[3:])}: {last[0][:200]}")
                print("FAIL " + failures[-1], flush=True)
            return why is None

        def commands(target, no_cache):
            # -F, -L and -V one per run: the tool refuses them together, as perf probe does.
            lookup = [args.tool] + (["--no-cache"] if no_cache else []) + ["-x", target]
            return [[args.tool, "--no-cache", "-x", target, "-D", "main $vars", "-D", "add:1 $vars"],
                    lookup + ["-F"], lookup + ["-L", "main"], lookup + ["-V", "add"]]

        digest = hashlib.sha256()  # of every input made: equal digests, equal runs
        replayed = 0
        for directory in args.replay:
            for name in sorted(os.listdir(directory)):
                if name.endswith(".dwp") or name.startswith("."):
                    continue
                for argv in commands(os.path.join(directory, name), True):
                    check(argv, f"regression {name}")
                replayed += 1
        for n in range(args.count):
            name, elf_path, dwp_path = seeds[n % len(seeds)]
            target = os.path.join(case_dir, name)
            with open(elf_path, "rb") as f:
                elf = f.read()
            dwp = None
            if dwp_path:
                with open(dwp_path, "rb") as f:
                    dwp = f.read()
            # A .dwp seed: the package is damaged, mostly; the program sometimes.
            if dwp is not None and rng.random() < 0.8:
                dwp = mutate(dwp, rng)
            else:
                elf = mutate(elf, rng)
            digest.update(elf + (dwp or b""))
            for path in (target, target + ".dwp"):
                if os.path.exists(path):
                    os.unlink(path)
            with open(target, "wb") as f:
                f.write(elf)
            if dwp is not None:
                with open(target + ".dwp", "wb") as f:
                    f.write(dwp)
            for argv in commands(target, n % 4 == 0):
                if not check(argv, f"case {n} ({name})"):
                    if args.keep:
                        os.makedirs(args.keep, exist_ok=True)
                        kept = os.path.join(args.keep, f"case{n}_{name}")
                        shutil.copy(target, kept)
                        if dwp is not None:
                            shutil.copy(target + ".dwp", kept + ".dwp")
                    break
        print(f"{replayed} regressions and {args.count} inputs (seed {args.seed}, digest {digest.hexdigest()[:16]}), "
              f"{sum(statuses.values())} runs; exit statuses {dict(sorted(statuses.items()))}")
        print(f"largest peak RSS {worst_rss[0] >> 10} MiB ({worst_rss[1]}); longest run {worst_time[0]:.2f} s ({worst_time[1]})")
        print(f"{len(failures)} failed")
        return 1 if failures else 0
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
