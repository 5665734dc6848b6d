#!/usr/bin/env python3
"""The long-function check (scripts/long_functions.py --check): no function of
the real tree is longer than 60 lines, and on a fixture it finds the one that
is, although its head has a `= {}` default argument."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, '..', '..', 'scripts', 'long_functions.py')


def run(*args):
    return subprocess.run([sys.executable, script, '--check', *args], capture_output=True, text=True)


failures = []
real = run()
if real.returncode != 0:
    failures.append('functions longer than 60 lines (split them):\n' + real.stdout)

fixture = run(os.path.join(here, 'fixtures', 'long_function'))
rows = fixture.stdout.splitlines()
if fixture.returncode != 1:
    failures.append(f'long_function: exit {fixture.returncode}, expected 1')
if not any(r.split()[1:] == ['src/demo/long.cpp:10', 'long_one'] for r in rows[:-1]) or len(rows) != 2:
    failures.append('long_function: expected long_one at src/demo/long.cpp:10 alone, got:\n' + fixture.stdout)

for f in failures:
    print('FAIL:', f)
sys.exit(1 if failures else 0)
