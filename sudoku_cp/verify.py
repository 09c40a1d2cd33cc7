"""The independent checker every answer passes before it is returned or printed.

It depends on nothing but the geometry: no encoder, no solver.
"""

from __future__ import annotations

import numpy as np

from .errors import SudokuCpError
from .geometry import Geometry
from .grid import Grid

__all__ = [
    "VerificationError",
    "given_conflict",
    "solution_problem",
    "check_solution",
    "valid_completions",
    "valid_solutions_mask",
]


class VerificationError(SudokuCpError, ValueError):
    """A grid that breaks the rules or disagrees with its givens."""


def given_conflict(grid: Grid) -> str | None:
    """Describe the first pair of equal givens in one unit, or None.

    For example 'R1C1 and R1C5 both hold 4 in row 1'.
    """
    g = grid.geometry
    n = g.n
    flat = grid.values.reshape(-1)
    by_unit = flat[g.units].astype(np.int64)  # (3n, n)
    counts = np.bincount(
        (np.arange(3 * n)[:, None] * (n + 1) + by_unit).reshape(-1), minlength=3 * n * (n + 1)
    )
    counts = counts.reshape(3 * n, n + 1)[:, 1:]
    for unit_index in np.flatnonzero((counts > 1).any(axis=1)):
        unit = g.units[unit_index]
        seen: dict[int, int] = {}
        for cell in unit:
            d = int(flat[cell])
            if d and d in seen:
                return (
                    f"{g.cell_name(seen[d])} and {g.cell_name(int(cell))} both hold {d} "
                    f"in {g.unit_name(int(unit_index))}"
                )
            seen.setdefault(d, int(cell))
    return None


def _unit_ok(geometry: Geometry, stack: np.ndarray) -> np.ndarray:
    """For a (k, n*n) stack of complete grids (digits 1..n), True where every unit holds each digit once.

    Up to 62 digits a cell's digit is a bit, and a unit holds every digit once exactly when its
    n bits add up to 2**n - 1 (n powers of two with that sum are n different ones): sums over
    reshaped views, no gather.  Beyond, a table of the digits present in each unit.
    """
    p, q, n = geometry.p, geometry.q, geometry.n
    k = stack.shape[0]
    if n <= 62:
        bits = np.left_shift(np.int64(1), stack.astype(np.int64) - 1).reshape(k, n, n)  # (k, row, column)
        full = (1 << n) - 1
        ok = (bits.sum(axis=2) == full).all(axis=1) & (bits.sum(axis=1) == full).all(axis=1)
        boxes = bits.reshape(k, q, p, p, q).sum(axis=(2, 4))  # [band, row in band, stack, column in stack]
        return np.asarray(ok & (boxes == full).all(axis=(1, 2)))
    by_unit = stack[:, geometry.units]  # (k, 3n, n)
    present = np.zeros((k, 3 * n, n + 1), dtype=bool)
    k_idx = np.arange(k)[:, None, None]
    u_idx = np.arange(3 * n)[None, :, None]
    present[k_idx, u_idx, by_unit] = True
    return np.asarray(present[:, :, 1:].all(axis=(1, 2)))


def valid_solutions_mask(puzzle: Grid, solutions: np.ndarray) -> np.ndarray:
    """For a (k, n, n) stack of candidate solutions: True where one is complete, valid, with the givens."""
    givens = puzzle.values.reshape(1, -1)
    return valid_completions(puzzle.geometry, givens, np.asarray(solutions).reshape(-1, puzzle.n**2))


def valid_completions(geometry: Geometry, puzzles: np.ndarray, solutions: np.ndarray) -> np.ndarray:
    """For (k, n*n) puzzles and (k, n*n) candidate solutions, row by row: True where the solution is
    complete, valid, and keeps the puzzle's givens (a (1, n*n) ``puzzles`` serves every row)."""
    n = geometry.n
    stack = np.asarray(solutions).reshape(-1, n * n)
    givens = np.asarray(puzzles).reshape(-1, n * n)
    ok = ((stack >= 1) & (stack <= n)).all(axis=1) & ((stack == givens) | (givens == 0)).all(axis=1)
    if ok.any():
        ok[ok] = _unit_ok(geometry, stack[ok])
    return ok


def solution_problem(puzzle: Grid, solution: Grid) -> str | None:
    """Describe why ``solution`` is not a valid completion of ``puzzle`` (first problem found), or None."""
    g = puzzle.geometry
    if solution.geometry != g:
        return (
            f"solution is {solution.n}x{solution.n} with {solution.geometry.box_label} boxes, puzzle is not"
        )
    flat = solution.values.reshape(-1)
    givens = puzzle.values.reshape(-1)
    empty = np.flatnonzero(flat == 0)
    if empty.size:
        return f"{g.cell_name(int(empty[0]))} is empty"
    changed = np.flatnonzero((givens != 0) & (flat != givens))
    if changed.size:
        cell = int(changed[0])
        return f"{g.cell_name(cell)} holds {flat[cell]} but the given is {givens[cell]}"
    conflict = given_conflict(solution)
    if conflict is not None:
        return conflict
    return None


def check_solution(puzzle: Grid, solution: Grid) -> Grid:
    """Return ``solution`` if it is a valid completion of ``puzzle``; raise VerificationError otherwise."""
    problem = solution_problem(puzzle, solution)
    if problem is not None:
        raise VerificationError(problem)
    return solution
