"""The pysat batch path's "no solution" is confirmed on the plain extended encoding.

Its 9x9 propagation once took every 9x9 grid for 3x3 boxes: a solvable puzzle with 1x9 boxes was
answered unsat (found by ``sudoku-cp fuzz``).  A claim without a grid to check is now solved
again by another path (``backends.confirm``); a propagation that lies is caught there.
"""

from __future__ import annotations

import numpy as np
import pytest

import sudoku_cp as sc
from sudoku_cp.backends import pysat_batch
from sudoku_cp.checker import given_conflict
from sudoku_cp.outcome import Status

ONE_BY_NINE = "." * 71 + "1......1.."  # two 1s in row 8 and row 9: fine with 1x9 boxes, a clash with 3x3
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


@pytest.mark.parametrize(("box", "puzzle"), [((1, 9), ONE_BY_NINE), ((9, 1), None)])
def test_nine_by_nine_grids_of_other_boxes_are_solved_by_the_batch_path(
    box: tuple[int, int], puzzle: str | None
) -> None:
    if puzzle is None:  # the 9x1 twin: the same grid transposed
        puzzle = "".join(ONE_BY_NINE[c * 9 + r] for r in range(9) for c in range(9))
    grid = sc.parse_grid(puzzle, box=box)
    for backend in ("pysat", "pysat:cadical195", "dlx", "cpsat"):
        result = sc.solve(grid, backend)
        assert result.status == Status.SOLVED, (backend, result)


def test_a_false_contradiction_of_the_propagation_is_never_unsat(monkeypatch: pytest.MonkeyPatch) -> None:
    batch = pysat_batch.BatchPysat
    real = batch._propagate

    def lying(self, geometry, givens, deadline):  # type: ignore[no-untyped-def]
        placed, dead, candidates = real(self, geometry, givens, deadline)
        return placed, np.ones_like(dead), candidates

    monkeypatch.setattr(batch, "_propagate", lying)
    result = sc.solve(sc.parse_grid(HARD), "pysat")
    assert result.status != Status.UNSAT, result
    assert "found the puzzle contradictory but pysat" in (result.error or ""), result


def test_a_true_no_solution_stays_unsat() -> None:
    """A unique puzzle with another digit in an empty cell (no direct clash) has no solution."""
    grid = sc.parse_grid(HARD)
    solved = sc.solve(grid, "dlx").solution
    assert solved is not None
    solution = solved.values
    values = grid.values.copy()
    for cell in map(int, np.flatnonzero(values.reshape(-1) == 0)):
        r, c = divmod(cell, 9)
        for digit in range(1, 10):
            values[r, c] = digit
            if digit != solution[r, c] and given_conflict(grid.with_values(values)) is None:
                result = sc.solve(grid.with_values(values), "pysat")
                assert result.status == Status.UNSAT, result
                return
        values[r, c] = 0
    raise AssertionError("no such cell")
