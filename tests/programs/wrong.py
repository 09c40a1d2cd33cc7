"""A deliberately wrong external solver; the first argument says how it errs.

cell    a solution with one open cell changed (a unit then holds a digit twice)
given   a solution with one given changed
unique  claims every solution it finds is unique
blank   a solution with one cell left empty
"""

from __future__ import annotations

import sys

from sudoku_text import line, read_puzzle, solve

mode = sys.argv.pop(1)
cells, n, p, q = read_puzzle()
found = solve(cells, n, p, q, 1)
if not found:
    print("unsat")
    sys.exit(0)
grid = found[0]
if mode == "unique":
    print("unique " + line(grid))
    sys.exit(0)
givens = [cell for cell, value in enumerate(cells) if value]
opens = [cell for cell, value in enumerate(cells) if not value]
target = givens[0] if mode == "given" else opens[0]
grid[target] = 0 if mode == "blank" else grid[target] % n + 1
print(line(grid))
