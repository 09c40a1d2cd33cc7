"""A solver program for ``benchmarks/fuzz.py``: the protocol of ``verify`` (the puzzle line on
standard input, ``--box PxQ``; one answer line out), correct but for one narrow bug.

    python fuzz_program.py MODE [--sleep SECONDS] --box PxQ < puzzle-line

MODE:

* ``correct``: always right (the backtracking solver of ``tests/programs/sudoku_text.py``);
* ``one-in-N`` (e.g. ``one-in-100``): wrong on the puzzles whose line's SHA-256, read as a number,
  is 0 modulo N (1 case in N, the same cases in every run): it prints the solution (or, when there
  is none, the puzzle with its blanks filled with 1) with the first cell's digit changed;
* ``fives``: on grids of side 9 with two or more given 5s, the solution with its first open cell's
  digit changed (a 1-minimal failing puzzle holds exactly two 5s and nothing else).

``--sleep S`` waits S seconds before answering (a solver that takes that long a call).
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "programs"))

from sudoku_text import line, read_puzzle, solve  # noqa: E402

mode = sys.argv.pop(1)
if "--sleep" in sys.argv:
    at = sys.argv.index("--sleep")
    time.sleep(float(sys.argv[at + 1]))
    del sys.argv[at : at + 2]
cells, n, p, q = read_puzzle()
found = solve(cells, n, p, q, 1)
grid = found[0] if found else None
if mode.startswith("one-in-"):
    every = int(mode.removeprefix("one-in-"))
    if int(hashlib.sha256(line(cells).encode()).hexdigest(), 16) % every == 0:
        wrong = list(grid) if grid is not None else [value or 1 for value in cells]
        wrong[0] = wrong[0] % n + 1
        grid = wrong
elif mode == "fives":
    opens = [cell for cell, value in enumerate(cells) if not value]
    if grid is not None and n == 9 and cells.count(5) >= 2 and opens:
        grid = list(grid)
        grid[opens[0]] = grid[opens[0]] % n + 1
elif mode != "correct":
    sys.exit(f"unknown mode {mode!r}")
print("unsat" if grid is None else line(grid))
