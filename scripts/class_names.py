#!/usr/bin/env python3
"""How many names each class declares: member functions and data members,
each name once (overloads and constructors count once; nested types and type
aliases do not count), read from the headers by Universal Ctags.

    scripts/class_names.py [FOLDER ...] [--top N]

prints "COUNT CLASS" for the classes declared in the headers under FOLDER
(default: dwarf), largest first. It is how issue 27's "no class in dwarf/
declares more than ~40 names" is measured; run it before and after a change
to see a class shrink.
"""
import argparse
import collections
import pathlib
import subprocess
import sys

# Kinds ctags gives a class's members: functions defined in the class,
# functions declared there, data members.
MEMBER_KINDS = {"function", "prototype", "member"}


def names_by_class(headers):
    found = collections.defaultdict(set)
    for header in headers:
        out = subprocess.run(
            ["ctags", "-x", "--_xformat=%N\t%{scope}\t%K", "--c++-kinds=+p", "--language-force=c++", str(header)],
            check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            name, scope, kind = (line.split("\t") + ["", ""])[:3]
            # A scope that is a namespace holds free functions, not members;
            # ctags names both "a::b", so a class is told by the kinds below.
            if kind in MEMBER_KINDS and scope:
                found[scope].add(name)
    return found


def class_scopes(headers):
    scopes = set()
    for header in headers:
        out = subprocess.run(
            ["ctags", "-x", "--_xformat=%N\t%{scope}\t%K", "--language-force=c++", str(header)],
            check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            name, scope, kind = (line.split("\t") + ["", ""])[:3]
            if kind in ("class", "struct"):
                scopes.add(f"{scope}::{name}" if scope else name)
    return scopes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=["dwarf"])
    parser.add_argument("--top", type=int, default=20, help="how many classes to print (0: all)")
    args = parser.parse_args()
    headers = sorted(h for f in args.folders for h in pathlib.Path(f).rglob("*.h"))
    if not headers:
        sys.exit(f"no headers under {' '.join(args.folders)}")
    classes = class_scopes(headers)
    counts = [(len(names), scope) for scope, names in names_by_class(headers).items() if scope in classes]
    counts.sort(key=lambda c: (-c[0], c[1]))
    for count, scope in counts[: args.top or None]:
        print(f"{count:4d} {scope}")


if __name__ == "__main__":
    main()
