#!/usr/bin/env python3
"""The layering check (scripts/check_layers.py): the real tree passes, and a
tree with back arrows fails with one line per arrow, naming file and line."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, '..', '..', 'scripts', 'check_layers.py')


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


failures = []
real = run()
if real.returncode != 0:
    failures.append('the tree has layering violations:\n' + real.stdout)

bad = run(os.path.join(here, 'fixtures', 'back_arrow'))
expected = [
    'scripts/layers.txt:3: dwarf uses src/cli, which is not listed above it',
    'src/extra/: a library folder that scripts/layers.txt does not place',
    'dwarf/reader.cpp:2: includes src/cli/commands.h: dwarf may use src/util (scripts/layers.txt)',
    'src/cli/commands.h:2: includes <llvm/Support/Error.h>: only dwarf/ includes LLVM',
]
if bad.returncode != 1:
    failures.append(f'back_arrow: exit {bad.returncode}, expected 1')
lines = [l.replace(os.path.join(here, 'fixtures', 'back_arrow') + '/', '') for l in bad.stdout.splitlines()]
for line in expected:
    if line not in lines:
        failures.append(f'back_arrow: missing "{line}" in:\n' + '\n'.join(lines))
if any('src/cli/commands.h:3' in l for l in lines):
    failures.append('back_arrow: cli including dwarf (downwards) was reported')

for f in failures:
    print('FAIL:', f)
sys.exit(1 if failures else 0)
