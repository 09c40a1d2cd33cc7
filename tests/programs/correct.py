"""A correct external solver: the solution line, 'unique <line>' / 'multiple <line>' with --unique,
or 'unsat'."""

from __future__ import annotations

import sys

from sudoku_text import line, read_puzzle, solve

unique = "--unique" in sys.argv
cells, n, p, q = read_puzzle()
found = solve(cells, n, p, q, 2 if unique else 1)
if not found:
    print("unsat")
elif not unique:
    print(line(found[0]))
else:
    print(("unique " if len(found) == 1 else "multiple ") + line(found[0]))
