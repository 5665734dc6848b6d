#!/usr/bin/env python3
"""Fails when a library includes a header of a library it may not use.

The allowed uses are scripts/layers.txt (the one table): each library names
the libraries it may use directly, only ones listed above it, so the layers
read bottom-up with no arrow back up. A library may use what those use, in
turn. Also checked: every source folder is in the table (a new one must be
placed), and only dwarf/ includes LLVM (<llvm/...>).

Usage: check_layers.py [ROOT] (default: the checkout this script is in).
Prints one line per violation, FILE:LINE first, and exits 1 if any.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = ('.h', '.hpp', '.cpp', '.cc', '.c')
# Folders whose subfolders are libraries (src/spec, src/cli, ...) or layers
# of one library (dwarf/elf, dwarf/query, ...) of their own; the files at
# such a folder's top (dwarf/'s public headers) are a layer of their own too.
AREA_PARENTS = ('src', 'dwarf')
# Folders that hold no library: free to use any.
UNCHECKED = ('tests', 'bench', 'build', 'scripts', 'Documentation', '.ci', '.git')
LLVM_ONLY_IN = 'dwarf'


def read_table(path):
    """{library: [direct uses]} in file order; errors for names not listed above."""
    table, errors = {}, []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            name, _, uses = line.partition(':')
            name, uses = name.strip(), uses.split()
            for use in uses:
                if use not in table:
                    errors.append(f'{path}:{number}: {name} uses {use}, which is not listed above it')
            table[name] = [use for use in uses if use in table]
    return table, errors


def closure(table):
    """{library: every library it may use, directly or through others}."""
    allowed = {}
    for name, uses in table.items():  # file order: uses are done before their users
        reach = set()
        for use in uses:
            reach.add(use)
            reach |= allowed.get(use, set())
        allowed[name] = reach
    return allowed


def library_folders(root):
    """The folders that are libraries: top-level folders with sources, src/<area> and dwarf/<layer>."""
    folders = []
    for entry in sorted(os.listdir(root)):
        path = os.path.join(root, entry)
        if not os.path.isdir(path) or entry in UNCHECKED or entry.startswith('.'):
            continue
        if any(name.endswith(SOURCE_SUFFIXES) for name in os.listdir(path)):
            folders.append(entry)
        if entry in AREA_PARENTS:
            folders += [f'{entry}/{area}' for area in sorted(os.listdir(path)) if os.path.isdir(os.path.join(path, area))]
    return folders


def sources_of(root, folder):
    """The source files of a library folder; an area parent's own files only (its areas are checked apart)."""
    top = os.path.join(root, folder)
    for dirpath, dirnames, names in os.walk(top):
        dirnames.sort()
        if folder in AREA_PARENTS:
            dirnames.clear()
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def library_of(header, libraries):
    """The library a project header ("src/cli/commands.h") belongs to, or None."""
    best = None
    for lib in libraries:
        if header.startswith(lib + '/') and (best is None or len(lib) > len(best)):
            best = lib
    return best


def check(root):
    table_path = os.path.join(root, 'scripts', 'layers.txt')
    table, problems = read_table(table_path)
    allowed = closure(table)
    folders = library_folders(root)
    for folder in folders:
        if folder not in table:
            problems.append(f'{folder}/: a library folder that scripts/layers.txt does not place')
    for folder in folders:
        if folder not in table:
            continue
        for path in sources_of(root, folder):
            problems += check_file(path, os.path.relpath(path, root), folder, table, allowed, folders)
    return problems


def check_file(path, rel, folder, table, allowed, folders):
    """The includes of one file of library `folder` that it may not use."""
    problems = []
    in_llvm_library = folder == LLVM_ONLY_IN or folder.startswith(LLVM_ONLY_IN + '/')
    with open(path, errors='replace') as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, header = m.groups()
            if kind == '<' and header.startswith('llvm/') and not in_llvm_library:
                problems.append(f'{rel}:{number}: includes <{header}>: only {LLVM_ONLY_IN}/ includes LLVM')
                continue
            if kind != '"':
                continue
            used = library_of(header, table.keys()) or library_of(header, folders)
            if used is None or used == folder or used in allowed[folder]:
                continue
            may = ' '.join(sorted(allowed[folder])) or 'nothing'
            problems.append(f'{rel}:{number}: includes {header}: {folder} may use {may} (scripts/layers.txt)')
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} layering violation(s): a lower layer uses a higher one, see scripts/layers.txt')
        return 1
    print('layers: every include points down (scripts/layers.txt)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
