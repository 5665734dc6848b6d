#!/usr/bin/env python3
"""Lists the functions longer than a screen (default 60 lines), longest first.

Usage: long_functions.py [--max N] [--exclude DIR]... [--check] [ROOT]
Looks at the C/C++ sources of ROOT (default: this checkout) outside tests/,
bench/ and build trees; prints "LINES FILE:LINE NAME" per function longer
than N lines (signature to closing brace) and the count on the last line.
With --check it exits 1 when it printed any (ctest runs it so:
tests/layers/long_functions_test.py).
A reading aid, not a parser: it finds a function as a brace block at
namespace or class scope whose head has a parameter list.
"""
import argparse
import os
import re
import sys

SOURCE_SUFFIXES = ('.h', '.hpp', '.cpp', '.cc', '.c')
SKIP = {'tests', 'bench', 'build', '.git', '.ci'}
NOT_FUNCTIONS = re.compile(r'\b(namespace|class|struct|union|enum|extern)\b')
NAME = re.compile(r'([~\w:]+(?:operator\s*\S+)?)\s*\($')


def strip(text):
    """The text with comments, strings and characters blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(')' + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return ''.join(out)


def functions(path):
    """(first line, last line, name) of each function defined in `path`."""
    text = strip(open(path, errors='replace').read())
    # Preprocessor lines (with their continuations) are no code to count braces in.
    text = re.sub(r'(?m)^[ \t]*#(?:.*\\\n)*.*$', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    found, stack, head_start = [], [], 0  # stack: 'scope' | 'function' | 'other'
    parens = 0  # open parentheses: a brace inside them outside a function is part of a head (`T x = {}`)
    for i, c in enumerate(text):
        if c in '()':
            parens += 1 if c == '(' else -1
            continue
        if parens > 0 and c in '{};' and not any(k == 'function' for k, _, _ in stack):
            continue
        if c in ';}':
            if c == '}' and stack:
                kind, start, name = stack.pop()
                if kind == 'function':
                    found.append((text.count('\n', 0, start) + 1, text.count('\n', 0, i) + 1, name))
            head_start = i + 1
        elif c == '{':
            head = text[head_start:i]
            inside_function = any(k == 'function' for k, _, _ in stack)
            kind, name = 'other', ''
            if not inside_function:
                if NOT_FUNCTIONS.search(head) and '(' not in head.split('{')[0].split('=')[0]:
                    kind = 'scope'
                else:
                    m = re.search(r'([~\w:]+)\s*\([^;]*\)[^()]*$', head.strip().replace('\n', ' '))
                    if m and m.group(1) not in ('if', 'for', 'while', 'switch', 'catch', 'return'):
                        kind, name = 'function', m.group(1)
                    elif NOT_FUNCTIONS.search(head) or not head.strip():
                        kind = 'scope' if not head.strip() == '' else 'other'
            start = head_start + len(head) - len(head.lstrip())
            stack.append((kind, start, name))
            head_start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--max', type=int, default=60)
    ap.add_argument('--exclude', action='append', default=[])
    ap.add_argument('--check', action='store_true', help='exit 1 when a function is longer than --max')
    ap.add_argument('root', nargs='?', default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    rows = []
    for dirpath, dirs, names in os.walk(args.root):
        rel_dir = os.path.relpath(dirpath, args.root)
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith('build')
                         and os.path.normpath(os.path.join(rel_dir, d)) not in args.exclude)
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                path = os.path.join(dirpath, name)
                for first, last, fn in functions(path):
                    if last - first + 1 > args.max:
                        rows.append((last - first + 1, f'{os.path.relpath(path, args.root)}:{first}', fn))
    for lines, where, fn in sorted(rows, reverse=True):
        print(f'{lines:5d} {where} {fn}')
    print(f'{len(rows)} functions longer than {args.max} lines')
    return 1 if args.check and rows else 0


if __name__ == '__main__':
    sys.exit(main())
