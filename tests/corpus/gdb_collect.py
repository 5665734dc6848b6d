# Runs inside gdb (gdb -nx -batch -x gdb_collect.py): the oracle's truth.
#
# Reads a JSON request (path in $KPP_CORPUS_GDB_REQUEST):
#   {"out": PATH, "probes": [{"id": "p3", "sites": [VADDR, ...], "ret": BOOL,
#     "func": NAME or null, "src": FILE or null, "line": N or null,
#     "vars": BOOL, "args": [{"key": K, "expr": "p->a[2]", "kind": "auto"|"string"|"s32"...}]}]}
# puts a breakpoint at every site address (the same addresses the uprobes
# use, relocated by the load base of the PIE), and at every hit records each
# requested value as gdb sees it at exactly that pc. Return probes: a
# breakpoint at the entry, then a finish breakpoint that records the return
# value. Writes {"base": B, "hits": {probe_id: [{"site": VADDR, "values":
# {key: [KIND, VALUE]}}]}} where KIND is int, str, opt (optimized out), err,
# agg (aggregate, not a scalar), float.
import json
import os
import re

import gdb

REQUEST = json.load(open(os.environ["KPP_CORPUS_GDB_REQUEST"]))
HITS = {}


class Uninit(Exception):
    pass
PENDING_FINISH = []

ACCESS_RE = re.compile(r"\s*(->|\.)\s*([A-Za-z_]\w*)|\s*\[\s*(-?\d+)\s*\]")


def strip(t):
    return t.strip_typedefs()


def is_char(t):
    t = strip(t)
    return t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR) and t.sizeof == 1


def optimized(v):
    try:
        return v.is_optimized_out
    except gdb.error:
        return False


def as_int(v):
    t = strip(v.type)
    if t.code == gdb.TYPE_CODE_PTR:
        return int(v.cast(gdb.lookup_type("unsigned long")))
    return int(v)


def as_string(v):
    t = strip(v.type)
    if t.code == gdb.TYPE_CODE_ARRAY:
        raw = bytes(int(v[i]) & 0xFF for i in range(t.range()[0], t.range()[1] + 1))
        raw = raw.split(b"\0", 1)[0]
    else:  # a pointer: read up to the NUL
        addr = int(v.cast(gdb.lookup_type("unsigned long")))
        inf = gdb.selected_inferior()
        raw = b""
        while len(raw) < 4096:
            chunk = bytes(inf.read_memory(addr + len(raw), 64))
            nul = chunk.find(b"\0")
            if nul >= 0:
                raw += chunk[:nul]
                break
            raw += chunk
    return raw.decode("latin-1")


def render(v, kind):
    """[KIND, VALUE] for a gdb.Value as the probe's type would show it."""
    if v is None:
        return ["err", "no value"]
    try:
        if optimized(v):
            return ["opt", None]
        t = strip(v.type)
        if kind == "string":
            return ["str", as_string(v)]
        m = re.fullmatch(r"([sux])(8|16|32|64)", kind)
        if m:
            if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION, gdb.TYPE_CODE_ARRAY):
                return ["agg", None]
            bits = int(m.group(2))
            n = as_int(v) & ((1 << bits) - 1)
            if m.group(1) == "s" and n >> (bits - 1):
                n -= 1 << bits
            return ["int", n]
        # auto: the DWARF type decides
        if t.code == gdb.TYPE_CODE_REF or t.code == gdb.TYPE_CODE_RVALUE_REF:
            return ["int", int(v.referenced_value().address.cast(gdb.lookup_type("unsigned long")))]
        if t.code == gdb.TYPE_CODE_ARRAY and is_char(t.target()):
            return ["str", as_string(v)]
        if t.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION, gdb.TYPE_CODE_ARRAY):
            return ["agg", None]
        if t.code == gdb.TYPE_CODE_FLT:
            return ["float", float(v)]
        return ["int", as_int(v)]
    except gdb.error as e:
        msg = str(e)
        if "optimized out" in msg or "not available" in msg:
            return ["opt", None]
        return ["err", msg]
    except (gdb.MemoryError, UnicodeError, ValueError, OverflowError) as e:
        return ["err", str(e)]


def func_block(pc, probe):
    """The block of the probed function at pc (an inlined copy is its own
    function block); None as the function block when the probed function
    has none at pc."""
    try:
        inner = gdb.block_for_pc(pc)
    except RuntimeError:
        return None
    want = probe.get("func")
    src = probe.get("src")
    line = probe.get("line")
    b = inner
    while b is not None and b.function is None:
        b = b.superblock
    cand = b
    while cand is not None:
        if cand.function is not None:
            f = cand.function
            name = f.name.split("(")[0]
            if want and (name == want or name.endswith("::" + want)):
                return inner, cand
            if src and f.symtab and os.path.basename(f.symtab.filename) == os.path.basename(src) and f.line <= line:
                return inner, cand
        cand = cand.superblock
        if cand is not None and cand.is_static:
            break
    if want or src:
        # The probed function has no block at pc (the first address of an
        # inlined copy that gdb counts as the caller's): what gdb shows here
        # are the caller's variables, not a value to compare with.
        return inner, None
    return inner, b


def lookup_root(name, inner, fblock):
    start = inner
    # a line of the outer function inside an inlined callee: look from the function block
    b = inner
    while b is not None and b != fblock:
        b = b.superblock
    if b is None:
        start = fblock
    sym = gdb.lookup_symbol(name, start)[0]
    if sym is None:
        sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    return sym


def uninitialised(sym, pc_line):
    """A local declared on or after the line the pc is on has not been
    assigned yet: its bytes are whatever the stack held, which differs from
    run to run (not a value to compare)."""
    return (sym.is_variable and not sym.is_argument and sym.addr_class != gdb.SYMBOL_LOC_STATIC
            and pc_line and sym.line >= pc_line)


def evaluate(expr, inner, fblock, frame, pc_line=0):
    m = re.match(r"\s*([A-Za-z_]\w*)", expr)
    if not m:
        raise gdb.error("cannot parse " + expr)
    sym = lookup_root(m.group(1), inner, fblock)
    if sym is None:
        raise gdb.error("no symbol " + m.group(1))
    if uninitialised(sym, pc_line):
        raise Uninit()
    v = sym.value(frame) if sym.needs_frame else sym.value()
    pos = m.end()
    while pos < len(expr):
        a = ACCESS_RE.match(expr, pos)
        if not a:
            raise gdb.error("cannot parse " + expr[pos:])
        if optimized(v):
            return v
        if a.group(1) == "->":
            v = v.dereference()[a.group(2)]
        elif a.group(1) == ".":
            v = v[a.group(2)]
        else:
            v = v[int(a.group(3))]
        pos = a.end()
    return v


def scope_vars(inner, fblock):
    """Locals and parameters in scope at pc, innermost first, up to the
    probed function's block (as $vars means)."""
    names, seen = [], set()
    b = inner
    while b is not None:
        for sym in b:
            if (sym.is_variable or sym.is_argument) and sym.name not in seen and not sym.name.startswith("__"):
                seen.add(sym.name)
                names.append(sym)
        if b == fblock or b.function is not None:
            break
        b = b.superblock
    return names


def record(probe, site):
    frame = gdb.newest_frame()
    pc = frame.pc()
    blocks = func_block(pc, probe)
    values = {}
    if blocks is None or blocks[1] is None:
        HITS.setdefault(probe["id"], []).append({"site": site, "values": {}, "noblock": True})
        return
    inner, fblock = blocks
    pc_line = gdb.find_pc_line(pc).line
    if probe.get("vars"):
        for sym in scope_vars(inner, fblock):
            if uninitialised(sym, pc_line):
                values["var:" + sym.name] = ["uninit", None]
                continue
            try:
                v = sym.value(frame) if sym.needs_frame else sym.value()
                values["var:" + sym.name] = render(v, "auto")
            except gdb.error as e:
                msg = str(e)
                values["var:" + sym.name] = ["opt", None] if "optimized out" in msg else ["err", msg]
    for arg in probe["args"]:
        try:
            v = evaluate(arg["expr"], inner, fblock, frame, pc_line)
            values[arg["key"]] = render(v, arg["kind"])
        except Uninit:
            values[arg["key"]] = ["uninit", None]
        except gdb.error as e:
            msg = str(e)
            values[arg["key"]] = ["opt", None] if "optimized out" in msg else ["err", msg]
    HITS.setdefault(probe["id"], []).append({"site": site, "values": values})


class ReturnRecorder(gdb.FinishBreakpoint):
    def __init__(self, frame, probe, site):
        super().__init__(frame, internal=True)
        self.probe, self.site = probe, site

    def stop(self):
        rv = self.return_value
        HITS.setdefault(self.probe["id"], []).append(
            {"site": self.site, "values": {"ret:$retval": render(rv, "auto") if rv is not None else ["err", "no return value"]}})
        return False

    def out_of_scope(self):
        HITS.setdefault(self.probe["id"], []).append({"site": self.site, "values": {"ret:$retval": ["err", "out of scope"]}})


class SiteBreakpoint(gdb.Breakpoint):
    def __init__(self, addr, site, probes):
        super().__init__("*0x%x" % addr, internal=True)
        self.site, self.probes = site, probes

    def stop(self):
        want_stop = False
        for probe in self.probes:
            if probe["ret"]:
                want_stop = True
            else:
                record(probe, self.site)
        if want_stop:
            PENDING_FINISH.append(self)
        return want_stop


def load_base():
    exe = os.path.realpath(REQUEST["exe"])
    out = gdb.execute("info proc mappings", to_string=True)
    best = None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0].startswith("0x") and os.path.realpath(parts[-1]) == exe:
            start, off = int(parts[0], 16), int(parts[3], 16)
            if best is None or start - off < best:
                best = start - off
    return best


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("starti", to_string=True)
    base = load_base()
    if base is None:
        raise SystemExit("no mapping of " + REQUEST["exe"])
    by_site = {}
    for probe in REQUEST["probes"]:
        for site in probe["sites"]:
            by_site.setdefault(site, []).append(probe)
    # vaddr of the ELF; base is where file offset 0 is mapped, vaddr of the
    # first PT_LOAD is 0 for the PIEs of the corpus
    for site, probes in sorted(by_site.items()):
        SiteBreakpoint(base + site, site, probes)
    while True:
        try:
            gdb.execute("continue", to_string=True)
        except gdb.error:
            break
        if not gdb.selected_inferior().pid:
            break
        while PENDING_FINISH:
            bp = PENDING_FINISH.pop()
            for probe in bp.probes:
                if probe["ret"]:
                    try:
                        ReturnRecorder(gdb.newest_frame(), probe, bp.site)
                    except (gdb.error, ValueError) as e:
                        HITS.setdefault(probe["id"], []).append(
                            {"site": bp.site, "values": {"ret:$retval": ["err", "finish: %s" % e]}})
    with open(REQUEST["out"], "w") as f:
        json.dump({"base": base, "hits": HITS}, f)


main()
