#!/usr/bin/env python3
"""Compares the words of the manual's asciidoc source with the man page as man renders it.

usage: man_words.py SOURCE.txt RENDERED.txt

RENDERED is `man -l` output of the built page (MANWIDTH wide enough not to wrap).
Every word of the source's prose must come out, in order, with the characters
asciidoc could take for markup (C++, ~N, _NAME, +OFFS, ->) as written. Only the
markup itself is set aside on both sides: the `literal`, 'emphasis', *bold* and
"quote" marks (which man shows as fonts or as the same characters), section
underlines, block delimiters, list bullets and the "::" ending an option label.
Prints each difference with its source line; exits 1 when there is one.
"""
import difflib
import re
import sys

MARKS = str.maketrans('', '', "`'*\"\u2019\u2018\u201c\u201d")
UNDERLINE = re.compile(r'^([=\-~^+])\1+$')
LABEL = re.compile(r'^(\S.*?)(::|;;)(\s.*|)$')
BLOCK_LINES = {'[verse]', '+', '--'}


def source_words(path):
    words = []
    previous_label = None
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if number <= 2 or UNDERLINE.match(stripped) or stripped in BLOCK_LINES:
            continue
        if stripped.startswith('//') or re.match(r'^:[\w-]+:', stripped):
            continue
        label = LABEL.match(stripped) if not line[:1].isspace() else None
        if label:  # an option label ("--add=::"), man joins a term's labels with ", "
            if previous_label is not None and previous_label == number - 1:
                words[-1] = (words[-1][0] + ',', words[-1][1])
            stripped = label.group(1) + label.group(3)
            previous_label = number if not label.group(3).strip() else None
        else:
            previous_label = None
        tokens = stripped.split()
        if tokens and tokens[0] in ('-', '*', '.'):  # a list item's bullet
            tokens = tokens[1:]
        words += [(t, number) for t in tokens]
    return words


def rendered_words(path):
    with open(path, encoding='utf-8') as f:
        lines = [l for l in f.read().split('\n') if l.strip()]
    words = []
    for line in lines[1:-1]:  # the page's header and footer lines
        words += [t for t in line.split() if t not in ('\u2022', 'o', '\u00b7')]
    return words


def main():
    source = source_words(sys.argv[1])
    rendered = rendered_words(sys.argv[2])
    a = [w.translate(MARKS) for w, _ in source]
    b = [w.translate(MARKS) for w in rendered]
    a_keep = [i for i, w in enumerate(a) if w]
    b_keep = [w for w in b if w]
    a_words = [a[i] for i in a_keep]
    differences = 0
    matcher = difflib.SequenceMatcher(None, a_words, b_keep, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == 'equal':
            continue
        differences += 1
        line = source[a_keep[i1]][1] if i1 < len(a_keep) else source[-1][1]
        print(f'line {line}: source {" ".join(a_words[i1:i2])!r} rendered {" ".join(b_keep[j1:j2])!r}')
    for mark in ('C++', '~', '_'):
        print(f'{mark!r}: {sum(w.count(mark) for w in a_words)} in the source, '
              f'{sum(w.count(mark) for w in b_keep)} on the page')
    print(f'{len(a_words)} words compared, {differences} differences')
    return 1 if differences else 0


if __name__ == '__main__':
    sys.exit(main())
