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
    """Why ``cols`` (column per row) is not a valid placement inside S, or None when it is one."""
    g = instance.geometry
    n = g.n
    cols = np.asarray(cols)
    if cols.shape != (n,):
        return f"a placement needs one column for each of the {n} rows, got {cols.size}"
    if (cols < 0).any() or (cols >= n).any():
        return "a placement column lies outside the grid"
    seen_col: dict[int, int] = {}
    seen_box: dict[int, int] = {}
    for r in range(n):
        c = int(cols[r])
        name = g.cell_name(r * n + c)
        if not instance.mask[r, c]:
            return f"{name} is not in S"
        if c in seen_col:
            return f"{g.cell_name(seen_col[c])} and {name} share column {c + 1}"
        b = g.box_index(r, c)
        if b in seen_box:
            return f"{g.cell_name(seen_box[b])} and {name} share box {b + 1}"
        seen_col[c] = r * n + c
        seen_box[b] = r * n + c
    return None


def checked_placement(instance: NishioInstance, cols: np.ndarray, method: str) -> np.ndarray:
    """``cols`` as an int64 array after checking it is a valid placement inside S."""
    cols = np.asarray(cols, dtype=np.int64)
    problem = placement_problem(instance, cols)
    if problem is not None:
        raise WrongPlacementError(f"{method} returned an invalid placement {cols.tolist()}: {problem}")
    return cols


def has_empty_unit(instance: NishioInstance) -> bool:
    """True when some row, column or box holds no cell of S (so no placement exists)."""
    g = instance.geometry
    per_unit = instance.mask.reshape(-1)[g.units].any(axis=1)
    return not bool(per_unit.all())
