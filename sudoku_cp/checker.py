"""The independent checker every answer passes before it is returned or printed.

It reads nothing of a geometry but its box shape (p, q): rows, columns and boxes are derived here
from (p, q) alone, never from ``Geometry.units`` or any table the encoders use, so one geometry bug
cannot hide in both the answer and its check.  A box PxQ is P rows by Q columns; box ``b`` covers
rows ``(b // p) * p ...`` and columns ``(b % p) * q ...`` (boxes numbered in reading order).

Digits are checked as they come (integers 0..n, or 1..n in a solution, in an array of the right
shape) before any cast: a cast first would turn 65537 into 1 in int16 or 1.5 into 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

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

#: Up to this side a cell's digit and a unit's full sum 2**n - 1 fit an int64 (see ``_units_ok``).
_BIT_SIDES = 63


class VerificationError(SudokuCpError, ValueError):
    """A grid that breaks the rules or disagrees with its givens."""


def _cell_name(n: int, cell: int) -> str:
    return f"R{cell // n + 1}C{cell % n + 1}"


def _unit_name(n: int, unit: int) -> str:
    kind, index = divmod(unit, n)
    return f"{('row', 'column', 'box')[kind]} {index + 1}"


def _box_cells(p: int, q: int, box: int) -> list[int]:
    """The flat cells of box ``box``, in reading order, straight from the box rule."""
    n = p * q
    top, left = (box // p) * p, (box % p) * q
    return [(top + i) * n + left + j for i in range(p) for j in range(q)]


def _unit_cells(p: int, q: int, unit: int) -> list[int]:
    """The flat cells of unit ``unit`` (rows 0..n-1, columns n..2n-1, boxes 2n..3n-1), in order."""
    n = p * q
    kind, index = divmod(unit, n)
    if kind == 0:
        return [index * n + c for c in range(n)]
    if kind == 1:
        return [r * n + index for r in range(n)]
    return _box_cells(p, q, index)


def _by_unit(p: int, q: int, grids: np.ndarray) -> np.ndarray:
    """(k, 3n, n): the digits of every row, column and box of a (k, n, n) stack, cells in unit order.

    Views and one copy, no index table: rows as they are, columns transposed, and boxes by splitting
    rows into q bands of p and columns into p stacks of q ([band, row in band, stack, column in stack]).
    """
    n = p * q
    k = grids.shape[0]
    boxes = grids.reshape(k, q, p, p, q).transpose(0, 1, 3, 2, 4).reshape(k, n, n)
    return np.concatenate([grids, grids.transpose(0, 2, 1), boxes], axis=1)


def _is_digit(value: object, low: int, n: int) -> bool:
    """True for an integer low..n; a bool is no digit although Python counts True as 1."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        return False
    return bool(low <= value <= n)


def _as_array(values: Any) -> np.ndarray:
    """``values`` as an array without reading its items: lists become object arrays, since
    np.asarray([True, 2]) would already hold 1 and np.asarray([1.0, 2]) 2.0."""
    if isinstance(values, np.ndarray):
        return values
    return np.array(values, dtype=object)


def _digit_rows(values: Any, n: int, low: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Read ``values`` as a stack of n x n grids: (rows as small ints (k, n*n), True where a row's every cell
    holds an integer in low..n).

    A row with a cell outside low..n, or holding no integer (a float, a bool, text), is False and
    its cells are zeroed, so the caller can cast and index without wrapping.  The shape must end in
    (n*n,) or (n, n); anything else raises VerificationError naming ``what``.
    """
    array = _as_array(values)
    shape = array.shape
    if shape[-1:] != (n * n,) and shape[-2:] != (n, n):
        raise VerificationError(f"{what} of shape {shape} are not {n}x{n} grids")
    rows = array.reshape(-1, n * n)
    if rows.dtype.kind in "iu":  # numpy's bool is a kind of its own, 'b'
        cells_ok = (rows >= low) & (rows <= n)
    elif rows.dtype == object:
        cells_ok = np.frompyfunc(lambda value: _is_digit(value, low, n), 1, 1)(rows).astype(bool)
    else:
        cells_ok = np.zeros(rows.shape, dtype=bool)
    ok = np.asarray(cells_ok.all(axis=1))
    # Only now, every kept value in 0..n, is a narrow cast lossless: the smallest signed type holding
    # -n..n (int8 for 9x9, 8 times less to read than int64).
    narrow = np.min_scalar_type(-n)
    if ok.all():
        return rows.astype(narrow, copy=False), ok
    clean = np.zeros(rows.shape, dtype=narrow)
    clean[ok] = rows[ok].astype(narrow)
    return clean, ok


def given_conflict(grid: Grid) -> str | None:
    """Describe the first pair of equal givens in one unit, or None.

    For example 'R1C1 and R1C5 both hold 4 in row 1'.
    """
    p, q = grid.geometry.p, grid.geometry.q
    n = p * q
    values = np.asarray(grid.values).reshape(1, n, n)
    ordered = np.sort(_by_unit(p, q, values)[0], axis=1)
    repeated = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] != 0)
    units = np.flatnonzero(repeated.any(axis=1))
    if units.size == 0:
        return None
    unit = int(units[0])
    flat = values.reshape(-1)
    seen: dict[int, int] = {}
    for cell in _unit_cells(p, q, unit):
        digit = int(flat[cell])
        if digit and digit in seen:
            return (
                f"{_cell_name(n, seen[digit])} and {_cell_name(n, cell)} both hold {digit} "
                f"in {_unit_name(n, unit)}"
            )
        seen.setdefault(digit, cell)
    return None  # unreachable: the sort found a repeat in this unit


def _add_along(array: np.ndarray, axis: int) -> np.ndarray:
    """The sum of ``array`` along ``axis``, as one whole-array addition per index: numpy's own reduction
    over a short axis (n <= 62 here) runs several times slower on large stacks."""
    parts = np.moveaxis(array, axis, 0)
    total = parts[0].copy()
    for part in parts[1:]:
        total += part
    return total


def _units_ok(p: int, q: int, stack: np.ndarray) -> np.ndarray:
    """For a (k, n*n) integer stack of complete grids (digits 1..n): True where each unit holds each digit.

    Up to 63 digits a cell's digit is a bit, and a unit holds every digit once exactly when its
    n bits add up to 2**n - 1 (a sum of n powers of two has at most n bits set, n only when they
    differ).  The sum may wrap around (int32 up to 31 digits, int64 beyond), but a larger total
    congruent to 2**n - 1 would need more than n bits set, so a wrap never passes a wrong unit.
    Sums are over reshaped views, no gather.  Beyond 63 digits, each unit sorted must read 1..n.
    """
    n = p * q
    k = stack.shape[0]
    if n <= _BIT_SIDES:
        kind = np.int32 if n <= 31 else np.int64  # half the memory traffic of int64 where 2**n - 1 fits
        bits = np.left_shift(kind(1), stack.astype(kind) - 1).reshape(k, n, n)  # (k, row, column)
        full = (1 << n) - 1
        rows = _add_along(bits, 2)
        columns = _add_along(bits, 1)
        # [band, row in band, column] -> each band's rows added -> [band, stack, column in stack]
        boxes = _add_along(_add_along(bits.reshape(k, q, p, n), 2).reshape(k, q, p, q), 3)
        return np.asarray(
            (rows == full).all(axis=1) & (columns == full).all(axis=1) & (boxes == full).all(axis=(1, 2))
        )
    ordered = np.sort(_by_unit(p, q, stack.reshape(k, n, n)), axis=2)
    return np.asarray((ordered == np.arange(1, n + 1)).all(axis=(1, 2)))


def valid_solutions_mask(puzzle: Grid, solutions: npt.ArrayLike) -> np.ndarray:
    """For a (k, n, n) stack of candidate solutions: True where one is complete, valid, with the givens."""
    return valid_completions(puzzle.geometry, np.asarray(puzzle.values).reshape(1, -1), solutions)


def valid_completions(geometry: Geometry, puzzles: npt.ArrayLike, solutions: npt.ArrayLike) -> np.ndarray:
    """For (k, n*n) puzzles and (k, n*n) candidate solutions, row by row: True where the solution is
    complete, valid, and keeps the puzzle's givens (a (1, n*n) ``puzzles`` serves every row).

    A row holding anything but integers 1..n (0..n in the puzzle) is False; stacks whose shape is not
    k grids of n x n, or whose puzzles are neither 1 nor k, raise VerificationError.
    """
    p, q = geometry.p, geometry.q
    n = p * q
    stack, ok = _digit_rows(solutions, n, 1, "solutions")
    givens, givens_ok = _digit_rows(puzzles, n, 0, "puzzles")
    if givens.shape[0] not in (1, stack.shape[0]):
        raise VerificationError(f"{givens.shape[0]} puzzles for {stack.shape[0]} solutions")
    ok &= givens_ok
    ok &= ((stack == givens) | (givens == 0)).all(axis=1)
    if ok.any():
        ok[ok] = _units_ok(p, q, stack[ok])
    return ok


def _value_problem(n: int, values: Any, whose: str) -> str | None:
    """Describe a wrong shape or the first cell of ``values`` that is neither 0 (empty) nor a digit
    1..n, or None."""
    array = _as_array(values)
    if array.shape != (n, n):
        return f"the {whose} is {'x'.join(map(str, array.shape)) or 'a single value'}, not {n}x{n}"
    if _digit_rows(array, n, 0, whose)[1][0]:
        return None  # the common case, vectorised: a 4096x4096 grid is 16 million cells
    cell, value = next(
        (cell, value) for cell, value in enumerate(array.reshape(-1).tolist()) if not _is_digit(value, 0, n)
    )
    return f"{_cell_name(n, cell)} of the {whose} holds {value!r}, not a digit 1..{n}"


def solution_problem(puzzle: Grid, solution: Grid) -> str | None:
    """Describe why ``solution`` is not a valid completion of ``puzzle`` (first problem found), or None."""
    g = puzzle.geometry
    if (solution.geometry.p, solution.geometry.q) != (g.p, g.q):
        return (
            f"solution is {solution.n}x{solution.n} with {solution.geometry.box_label} boxes, puzzle is not"
        )
    n = g.p * g.q
    # Grid validates its values, but by casting first: the checker reads them again as they are.
    problem = _value_problem(n, puzzle.values, "puzzle") or _value_problem(n, solution.values, "solution")
    if problem is not None:
        return problem
    flat = np.asarray(solution.values).reshape(-1).astype(np.int64)
    givens = np.asarray(puzzle.values).reshape(-1).astype(np.int64)
    empty = np.flatnonzero(flat == 0)
    if empty.size:
        return f"{_cell_name(n, int(empty[0]))} is empty"
    changed = np.flatnonzero((givens != 0) & (flat != givens))
    if changed.size:
        cell = int(changed[0])
        return f"{_cell_name(n, cell)} holds {flat[cell]} but the given is {givens[cell]}"
    return given_conflict(solution)


def check_solution(puzzle: Grid, solution: Grid) -> Grid:
    """Return ``solution`` if it is a valid completion of ``puzzle``; raise VerificationError otherwise."""
    problem = solution_problem(puzzle, solution)
    if problem is not None:
        raise VerificationError(problem)
    return solution
