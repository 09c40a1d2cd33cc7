"""Placements: n cells of a Nishio instance's S, one in each row, column and box, and their checker.

Inside the code a placement is an int array ``cols`` of length n, ``cols[r]`` the column used in
row r.  ``placement_problem`` is the one independent checker every method's answer passes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import SudokuCpError
from .instance import NishioInstance

__all__ = [
    "WrongPlacementError",
    "checked_placement",
    "has_empty_unit",
    "placement_cells",
    "placement_problem",
]


class WrongPlacementError(SudokuCpError, RuntimeError):
    """A solver returned a placement that is not valid inside S: a bug, never a silent answer."""


def placement_cells(cols: Sequence[int] | np.ndarray) -> list[tuple[int, int]]:
    """The 0-based (row, column) cells of a placement given as its column per row."""
    return [(r, int(c)) for r, c in enumerate(cols)]


def placement_problem(instance: NishioInstance, cols: Sequence[int] | np.ndarray) -> str | None:
    """Why ``cols`` (column per row) is not a valid placement inside S, or None when it is one.

    Works from the cells of S (no dense grid); the first problem in row order is named.
    """
    g = instance.geometry
    n = g.n
    cols = np.asarray(cols)
    if cols.shape != (n,):
        return f"a placement needs one column for each of the {n} rows, got {cols.size}"
    if (cols < 0).any() or (cols >= n).any():
        return "a placement column lies outside the grid"
    cols = cols.astype(np.int64)
    rows = np.arange(n, dtype=np.int64)
    boxes = (rows // g.p) * g.p + cols // g.q
    outside = ~instance.contains(rows, cols)
    first_col = _first_seen(cols)
    first_box = _first_seen(boxes)
    # The first row with any problem; within a row, S before the column before the box (as named).
    bad = outside | (first_col != rows) | (first_box != rows)
    if not bad.any():
        return None
    r = int(np.argmax(bad))
    c = int(cols[r])
    name = g.cell_name(r * n + c)
    if outside[r]:
        return f"{name} is not in S"
    if first_col[r] != r:
        return f"{g.cell_name(int(first_col[r]) * n + c)} and {name} share column {c + 1}"
    b = int(boxes[r])
    other = int(first_box[r])
    return f"{g.cell_name(other * n + int(cols[other]))} and {name} share box {b + 1}"


def _first_seen(values: np.ndarray) -> np.ndarray:
    """For each position, the first position holding the same value."""
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    return first[inverse.reshape(-1)]


def checked_placement(instance: NishioInstance, cols: np.ndarray, method: str) -> np.ndarray:
    """``cols`` as an int64 array after checking it is a valid placement inside S."""
    cols = np.asarray(cols, dtype=np.int64)
    problem = placement_problem(instance, cols)
    if problem is not None:
        raise WrongPlacementError(f"{method} returned an invalid placement {cols.tolist()}: {problem}")
    return cols


def has_empty_unit(instance: NishioInstance) -> bool:
    """True when some row, column or box holds no cell of S (so no placement exists)."""
    n = instance.n
    if instance.size == 0:
        return True
    # A unit without a cell of S is a row, column or box number missing from S's cells.
    return any(np.unique(values).size != n for values in (instance.rows, instance.cols, instance.boxes))
