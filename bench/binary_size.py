"""How big an ELF binary is, in the terms that drive a lookup's cost: the
file, its DWARF (the .debug_* sections as a reader sees them, that is after
decompression: Go's linker compresses its DWARF with zlib) and its function
symbols. For the bench's notes, so that rows are compared on binaries of a
known size (bench/user_compare.py, bench/growth.py)."""
import os
import re
import struct
import subprocess

# readelf -SW: [Nr] Name Type Address Off Size ES Flg ...
SECTION = re.compile(r"\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)")


def dwarf_size(path):
    """Bytes of the .debug_* sections, uncompressed (a compressed section's
    size is the ch_size of its Elf64_Chdr)."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    total = 0
    with open(path, "rb") as f:
        for m in SECTION.finditer(out):
            name, offset, size, flags = m.group(1), int(m.group(2), 16), int(m.group(3), 16), m.group(4)
            if not name.startswith(".debug_"):
                continue
            if "C" in flags:
                f.seek(offset + 8)  # ch_type, ch_reserved, then ch_size
                size = struct.unpack("<Q", f.read(8))[0]
            total += size
    return total


def function_symbols(path):
    out = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in out.splitlines() if " FUNC " in line)


def describe(path):
    """'1.8 MB, DWARF 1.7 MB, 1,433 function symbols'."""
    mb = 1024 * 1024
    return (f"{os.path.getsize(path) / mb:.1f} MB, DWARF {dwarf_size(path) / mb:.1f} MB, "
            f"{function_symbols(path):,} function symbols")
