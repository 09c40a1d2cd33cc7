"""What the test solver programs share: read the puzzle line, a small exact solver, print a line.

These programs stand in for a user's own solver in the tests of ``sudoku-cp verify``: they know
nothing of sudoku_cp and speak only its external-program protocol (puzzle line in, answer out).
"""

from __future__ import annotations

import math
import sys

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def read_puzzle() -> tuple[list[int], int, int, int]:
    """(cells, n, p, q): the puzzle from argv[1] if given, else stdin; '--box PxQ' sets the box."""
    args = sys.argv[1:]
    box: tuple[int, int] | None = None
    if "--box" in args:
        at = args.index("--box")
        rows, _, cols = args[at + 1].partition("x")
        box = (int(rows), int(cols))
        del args[at : at + 2]
    words = [word for word in args if not word.startswith("-")]
    line = words[0] if words else sys.stdin.readline()
    line = line.strip()
    n = math.isqrt(len(line))
    if box is None:
        root = math.isqrt(n)
        box = (root, root)
    cells = [0 if char in ".0" else SYMBOLS.index(char) + 1 for char in line]
    return cells, n, box[0], box[1]


def solve(cells: list[int], n: int, p: int, q: int, limit: int) -> list[list[int]]:
    """Up to ``limit`` solutions by backtracking on the cell with the fewest candidates."""
    units_of = []
    for cell in range(n * n):
        r, c = divmod(cell, n)
        box = (r // p) * p + c // q
        units_of.append((r, n + c, 2 * n + box))
    used = [0] * (3 * n)
    grid = list(cells)
    for cell, value in enumerate(grid):
        if value:
            bit = 1 << value
            for unit in units_of[cell]:
                if used[unit] & bit:
                    return []
                used[unit] |= bit
    full = ((1 << n) - 1) << 1
    found: list[list[int]] = []

    def search() -> None:
        best, best_free, best_count = -1, 0, n + 1
        for cell, value in enumerate(grid):
            if value == 0:
                a, b, c = units_of[cell]
                free = full & ~(used[a] | used[b] | used[c])
                count = bin(free).count("1")
                if count < best_count:
                    best, best_free, best_count = cell, free, count
                    if count <= 1:
                        break
        if best < 0:
            found.append(list(grid))
            return
        for value in range(1, n + 1):
            bit = 1 << value
            if best_free & bit:
                grid[best] = value
                for unit in units_of[best]:
                    used[unit] |= bit
                search()
                for unit in units_of[best]:
                    used[unit] &= ~bit
                grid[best] = 0
                if len(found) >= limit:
                    return

    search()
    return found


def line(cells: list[int]) -> str:
    """The one-line form of a grid."""
    return "".join(SYMBOLS[value - 1] if value else "." for value in cells)
