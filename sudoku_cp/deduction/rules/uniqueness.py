"""Rules that assume the puzzle has exactly one solution (marked ``uniqueness``, off unless asked).

- ``unique-rectangle`` (type 1): four open cells at the corners of a rectangle on two rows, two
  columns and exactly two boxes; three of them hold only the digits {a, b}, the fourth holds a,
  b and more.  If the fourth took a or b, the four cells could swap a and b and give a second
  solution (every row, column and box of the rectangle holds both digits), so it loses both.
- ``bug-plus-one`` (bivalue universal grave + 1): every open cell has two candidates but one,
  which has three, and removing one digit x from that cell leaves every digit with zero or two
  places in every unit.  Such a grave has no solution or an even number of them (each solution
  swapped cell by cell to its other candidate is another), so the cell holds x.

Both are sound only for puzzles with one solution; on others they can remove the truth.  The
rectangle search is vectorised over every pair of rows and pair of columns at once (candidate
sets as 64-bit masks, so grids up to 64 x 64).
"""

from __future__ import annotations

import numpy as np

from ..board import Board
from ..step import Step
from .base import Rule

__all__ = ["RULES", "bug_plus_one", "unique_rectangle"]

_MASK_SIDE = 64


def _digits(mask: int, n: int) -> list[int]:
    return [d for d in range(n) if mask >> d & 1]


def unique_rectangle(board: Board) -> Step | None:
    """Type 1: three corners {a, b}, the fourth {a, b, ...} loses a and b (rows, then columns,
    then the corner, in reading order)."""
    n, p, q = board.n, board.geometry.p, board.geometry.q
    if n > _MASK_SIDE:
        return None
    weights = np.uint64(1) << np.arange(n, dtype=np.uint64)
    masks = (board.cand.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
    masks[board.values != 0] = 0
    counts = board.cand.sum(axis=1)
    grid = masks.reshape(n, n)
    pairs = (counts == 2) & (board.values == 0)
    r1, r2 = np.triu_indices(n, 1)
    c1, c2 = np.triu_indices(n, 1)
    # exactly two boxes: the rows share a band or the columns share a stack, not both
    two_boxes = (r1 // p == r2 // p)[:, None] ^ (c1 // q == c2 // q)[None, :]
    corners = np.stack(
        [grid[r1][:, c1], grid[r1][:, c2], grid[r2][:, c1], grid[r2][:, c2]], axis=-1
    )  # (row pairs, column pairs, 4)
    bivalue = pairs.reshape(n, n)
    is_pair = np.stack(
        [bivalue[r1][:, c1], bivalue[r1][:, c2], bivalue[r2][:, c1], bivalue[r2][:, c2]], axis=-1
    )
    found = np.zeros(corners.shape, dtype=bool)
    for odd in range(4):
        others = [k for k in range(4) if k != odd]
        m = corners[..., others[0]]
        same = np.all(corners[..., others] == m[..., None], axis=-1) & is_pair[..., others].all(axis=-1)
        extra = corners[..., odd]
        found[..., odd] = two_boxes & same & (extra & m == m) & (extra != m)
    hits = np.argwhere(found)
    if hits.size == 0:
        return None
    i, j, odd = (int(x) for x in hits[0])
    rows, cols = (int(r1[i]), int(r2[i])), (int(c1[j]), int(c2[j]))
    cells = [rows[0] * n + cols[0], rows[0] * n + cols[1], rows[1] * n + cols[0], rows[1] * n + cols[1]]
    target = cells[odd]
    pair = _digits(int(corners[i, j, (odd + 1) % 4]), n)
    eliminations = np.array([[target, d] for d in pair], dtype=np.int64)
    name = board.geometry.cell_name
    a, b = pair[0] + 1, pair[1] + 1
    three = " ".join(name(c) for c in cells if c != target)
    note = (
        f"{three} hold only {{{a},{b}}}: if {name(target)} took {a} or {b}, the four cells could swap "
        f"{a} and {b} (a second solution), so it loses both"
    )
    boxes = tuple(sorted({int(board.tables.cell_units[c, 2]) for c in cells}))
    return Step(
        "unique-rectangle",
        np.zeros((0, 2), dtype=np.int64),
        eliminations,
        tuple(cells),
        boxes,
        tuple(pair),
        note=note,
    )


def bug_plus_one(board: Board) -> Step | None:
    """Every open cell bivalue but one trivalue cell whose extra digit would complete a grave:
    that digit goes there."""
    open_cells = board.values == 0
    counts = board.cand.sum(axis=1)
    odd = np.flatnonzero(open_cells & (counts != 2))
    if odd.size != 1 or counts[odd[0]] != 3:
        return None
    cell = int(odd[0])
    t = board.tables
    live = board.cand.astype(np.int64) * open_cells[:, None]
    places = live[t.units].sum(axis=1)  # (unit, digit): open places of the digit in the unit
    units = t.cell_units[cell]
    for digit in np.flatnonzero(board.cand[cell]):
        after = places.copy()
        after[units, digit] -= 1
        if np.isin(after, (0, 2)).all():
            x = int(digit)
            name = board.geometry.cell_name(cell)
            note = (
                f"every other open cell has two candidates; without {x + 1}, {name} would leave every "
                "digit two places in each unit (a deadly pattern with no solution or several), "
                f"so {x + 1} goes in {name}"
            )
            return Step(
                "bug-plus-one",
                np.array([[cell, x]], dtype=np.int64),
                np.zeros((0, 2), dtype=np.int64),
                (cell,),
                tuple(int(u) for u in units),
                (x,),
                note=note,
            )
    return None


RULES: tuple[Rule, ...] = (
    Rule(
        "unique-rectangle",
        "uniqueness",
        "three corners of a two-box rectangle hold one pair: the fourth loses both (one solution assumed)",
        4.5,
        unique_rectangle,
        uniqueness=True,
    ),
    Rule(
        "bug-plus-one",
        "uniqueness",
        "all open cells have two candidates but one: its digit that breaks the pattern goes there",
        5.6,
        bug_plus_one,
        uniqueness=True,
    ),
)
