#!/usr/bin/env python3
"""Copies an ELF64 little-endian file, damaging its first line table: the
prologue's header_length grows by 2, so LLVM's parser ends before the
prologue's stated end and reports it ("unknown data in line table
prologue ...") as a recoverable problem, then reads the table on.

Usage: damage_line_prologue.py IN OUT
"""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
data = bytearray(open(src, 'rb').read())
assert data[:4] == b'\x7fELF' and data[4] == 2 and data[5] == 1, 'ELF64 little-endian expected'
shoff = struct.unpack_from('<Q', data, 0x28)[0]
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)


def section(i):
    name, _type, _flags, _addr, offset, size = struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize)
    return name, offset, size


strtab = section(shstrndx)[1]
for i in range(shnum):
    name_at, offset, size = section(i)
    name = data[strtab + name_at:data.index(0, strtab + name_at)]
    if name == b'.debug_line':
        unit_length, version = struct.unpack_from('<IH', data, offset)
        assert unit_length < 0xfffffff0, '32-bit DWARF expected'
        # DWARF 5 has address_size and segment_selector_size before header_length.
        at = offset + 4 + 2 + (2 if version >= 5 else 0)
        header_length = struct.unpack_from('<I', data, at)[0]
        struct.pack_into('<I', data, at, header_length + 2)
        open(dst, 'wb').write(data)
        sys.exit(0)
sys.exit('no .debug_line in ' + src)
