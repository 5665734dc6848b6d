# Runs inside gdb (gdb -nx -batch -x values_gdb.py --args PROGRAM): the
# values oracle's truth. Reads a JSON request from $KPP_VALUES_REQUEST:
#   {"out": PATH, "cases": [{"id": "c3", "offsets": [FILE_OFFSET, ...], "expr": "name"}]}
# breaks at the file offsets (where the uprobes are), and at every hit
# records how gdb shows each case's expression there, with the language's
# own printing (Go, Rust, libstdc++'s pretty printers):
#   ["float", VALUE, BYTES] ["int", N] ["text", STRING]
#   ["items", LENGTH, [ELEMENTS]] ["enum", NUMBER, "AS GDB PRINTS IT"]
#   ["items", LENGTH, [ELEMENTS], ELEMENT BYTES]  (a fixed array)
#   ["ldouble", "AS GDB PRINTS IT"]
#   ["chars", STRING, LENGTH]  (a char array gdb shows as text)
#   ["none"] ["some", VALUE]  (an optional value: Rust's Option, std::optional)
#   ["opt"] ["err", MESSAGE]
# Writes {"hits": {id: [value, ...]}} in hit order.
import ast
import json
import os
import re

import gdb

REQUEST = json.load(open(os.environ["KPP_VALUES_REQUEST"]))
HITS = {}


def literal(text):
    """The bytes of a C-style string literal as gdb prints it ("a\\000b")."""
    m = re.match(r'\s*(?:0x[0-9a-f]+ )?(?:[LuU]8?)?"((?:[^"\\]|\\.)*)"', text, re.S)
    if not m:
        return None
    return ast.literal_eval('b"' + m.group(1) + '"').decode("latin-1")


def items_of(text):
    """(length, elements) of a sequence as gdb's printers show one."""
    m = re.search(r"of length (\d+)|len: (\d+)|size=(\d+)", text)
    go_slice = re.match(r"\[\]\S+ = \{", text)  # Go's printer: every element, no length
    if not m and not go_slice:
        return None
    body = text[text.rfind("{") + 1:text.rfind("}")] if "{" in text else ""
    elements = []
    for e in filter(None, (x.strip() for x in body.split(","))):
        elements.append(float(e) if re.search(r"[.eE]|inf|nan", e) else int(e, 0))
    length = int(next(g for g in m.groups() if g is not None)) if m else len(elements)
    return length, elements


def rust_scalar(text):
    """A value inside gdb's text of a Rust Some(...): read from the text, as
    gdb 13.1 fails an internal assertion reading the variant of an Option
    held in a niche ("idx < num_fields ()")."""
    if text in ("true", "false"):
        return ["int", int(text == "true")]
    if re.fullmatch(r"-?\d+|0x[0-9a-f]+", text):
        return ["int", int(text, 0)]
    if re.fullmatch(r"-?[\d.]+(e[-+]?\d+)?|-?inf|nan", text):
        return ["float", float(text), 8]
    s = literal(text)
    if s is not None:
        return ["text", s]
    enum = re.fullmatch(r"((?:\w+::)+)(\w+)", text)  # a fieldless enum's variant: values::Grade::High
    if enum:
        try:
            for field in gdb.lookup_type(enum.group(1)[:-2]).fields():
                if field.name.split("::")[-1] == enum.group(2):
                    return ["enum", field.enumval, text]
        except gdb.error:
            pass
    seq = items_of(text)  # a Vec: "Vec(size=3) = {3, 1, 4}"
    if seq is not None:
        return ["items", seq[0], seq[1]]
    return ["err", "cannot compare: " + text[:200]]


def render_optional(v, t):
    """["none"] or ["some", VALUE] for a Rust Option (gdb's Rust support) or
    a std::optional (libstdc++'s
    printer: one child when engaged); None for any other value."""
    name = t.name or ""
    if name.startswith("core::option::Option<"):
        # gdb names the active variant in its text; the type's fields may
        # list both variants.
        text = v.format_string()
        if re.search(r"::None$", text):
            return ["none"]
        m = re.search(r"::Some\((.*)\)$", text, re.S)
        if m:
            return ["some", rust_scalar(m.group(1))]
    if name.startswith("std::optional<"):
        printer = gdb.default_visualizer(v)
        if printer:
            children = list(printer.children())
            return ["some", render(children[0][1])] if children else ["none"]
    return None


def render(v):
    if v.is_optimized_out:
        return ["opt"]
    t = v.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_REF:
        v = v.referenced_value()
        t = v.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_FLT and t.sizeof > 8:  # x87 long double: gdb's digits, as text
        return ["ldouble", v.format_string()]
    if t.code == gdb.TYPE_CODE_FLT:
        return ["float", float(v), t.sizeof]
    if t.code == gdb.TYPE_CODE_ENUM:
        return ["enum", int(v), v.format_string()]
    if t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_CHAR, gdb.TYPE_CODE_BOOL):
        return ["int", int(v)]
    if t.code == gdb.TYPE_CODE_PTR:
        return ["int", int(v.cast(gdb.lookup_type("unsigned long")))]
    if t.code == gdb.TYPE_CODE_ARRAY:
        # A char array gdb shows as text: every byte but a last NUL, and its length.
        chars = literal(v.format_string(repeat_threshold=0, max_elements=0))
        if chars is not None:
            return ["chars", chars, t.sizeof]
    if t.code == gdb.TYPE_CODE_ARRAY:  # a fixed array: every element, a number each
        low, high = t.range()
        element = t.target().strip_typedefs()
        elements = [float(v[i]) if element.code == gdb.TYPE_CODE_FLT else int(v[i]) for i in range(low, high + 1)]
        return ["items", len(elements), elements, element.sizeof]
    optional = render_optional(v, t)
    if optional is not None:
        return optional
    text = v.format_string(repeat_threshold=0, max_elements=0)
    s = literal(text)
    if s is not None:
        return ["text", s]
    pointer = re.search(r"get\(\) = (0x[0-9a-f]+)", text)  # libstdc++'s unique_ptr and shared_ptr
    if pointer:
        return ["int", int(pointer.group(1), 16)]
    seq = items_of(text)
    if seq is not None:
        return ["items", seq[0], seq[1]]
    return ["err", "cannot compare: " + text[:200]]


def address_of(offset):
    exe = os.path.realpath(gdb.current_progspace().filename)
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        parts = line.split()
        if len(parts) < 5 or not parts[0].startswith("0x") or os.path.realpath(parts[-1]) != exe:
            continue
        start, end, off = int(parts[0], 16), int(parts[1], 16), int(parts[3], 16)
        if off <= offset < off + (end - start):
            return start + offset - off
    return None


class Site(gdb.Breakpoint):
    def __init__(self, addr, cases):
        super().__init__("*0x%x" % addr, internal=True)
        self.cases = cases

    def stop(self):
        for case in self.cases:
            try:
                value = render(gdb.parse_and_eval(case["expr"]))
            except gdb.error as e:
                msg = str(e)
                value = ["opt"] if "optimized out" in msg else ["err", msg]
            HITS.setdefault(case["id"], []).append(value)
        return False


def load_printers():
    """The languages' own printers: Rust's (rust-gdb) for every program,
    Go's runtime-gdb.py for a Go program (it binds to the program's objfile)."""
    import glob
    import sys
    if os.path.isdir("/usr/lib/rustlib/etc"):
        sys.path.insert(0, "/usr/lib/rustlib/etc")
        try:
            import gdb_lookup
            gdb.pretty_printers.append(gdb_lookup.lookup)
        except ImportError:
            pass
    if REQUEST.get("go"):
        for script in sorted(glob.glob("/usr/lib/go*/src/runtime/runtime-gdb.py"))[-1:]:
            gdb.execute("source " + script)


def main():
    load_printers()
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("starti", to_string=True)
    by_address = {}
    for case in REQUEST["cases"]:
        for offset in case["offsets"]:
            addr = address_of(offset)
            if addr is not None:
                by_address.setdefault(addr, []).append(case)
    for addr, cases in by_address.items():
        Site(addr, cases)
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        pass
    with open(REQUEST["out"], "w") as f:
        json.dump({"hits": HITS}, f)


main()
