"""The carving's SAT oracle (``generate._SatOracle``): from ``FRESH_SAT_SIDE`` on each question gets a
formula of its own (the givens' propagation encoded away); its answers are the incremental
solver's, and its witnesses are grids that keep the givens and change the cell."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.checker import solution_problem
from sudoku_cp.deduction import generate as generate_module
from sudoku_cp.deduction.generate import _SatOracle
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.native.carve import carve, check_witnesses, rng_states

pytestmark = pytest.mark.timeout(300)


def _assert_witness(geometry: Geometry, givens: np.ndarray, cell: int, digit: int, grid: np.ndarray) -> None:
    n = geometry.n
    assert solution_problem(Grid(geometry, givens.reshape(n, n)), Grid(geometry, grid.reshape(n, n))) is None
    assert grid[cell] != digit


@pytest.mark.parametrize("box", [(3, 3), (2, 4), (3, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
def test_a_fresh_formula_answers_as_the_incremental_solver(
    box: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    geometry = Geometry(*box)
    carved = carve(geometry, rng_states(6, np.arange(2)))
    incremental = _SatOracle(geometry, None)
    fresh = _SatOracle(geometry, None)
    asked = 0
    try:
        for b in range(2):
            puzzle, solution = carved.puzzles[b], carved.solutions[b]
            for cell in np.flatnonzero(puzzle):
                givens = puzzle.copy()
                givens[cell] = 0
                digit = int(solution[cell])
                monkeypatch.setattr(generate_module, "FRESH_SAT_SIDE", 99)
                before = incremental(givens, int(cell), digit)
                monkeypatch.setattr(generate_module, "FRESH_SAT_SIDE", 1)
                after = fresh(givens, int(cell), digit)
                assert before is not None and after is not None
                assert (before is False) == (after is False), cell
                if after is not False:
                    _assert_witness(geometry, givens, int(cell), digit, np.asarray(after))
                asked += 1
    finally:
        incremental.close()
        fresh.close()
    assert asked > 0 and fresh._solver is None  # the fresh path never opened the shared solver


def test_a_cell_the_givens_fix_has_no_other_digit_and_one_they_fix_elsewhere_any(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Propagation alone settles these: the cell fixed to the digit asked about (no solution
    changes it), or to another digit (no candidate to forbid: the solution itself answers)."""
    monkeypatch.setattr(generate_module, "FRESH_SAT_SIDE", 1)
    geometry = Geometry(3, 3)
    carved = carve(geometry, rng_states(1, np.arange(1)))
    solution = carved.solutions[0]
    givens = solution.copy()
    givens[40] = 0
    oracle = _SatOracle(geometry, None)
    assert oracle(givens, 40, int(solution[40])) is False
    other = int(solution[40]) % 9 + 1
    found = oracle(givens, 40, other)
    assert found is not False and found is not None
    assert np.array_equal(np.asarray(found), solution)


def test_carving_with_the_fresh_oracle_gives_the_same_puzzles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test to SAT (no counts): fresh formulas or one incremental solver, the same puzzles."""
    geometry = Geometry(3, 3)
    made = []
    for side in (99, 1):
        monkeypatch.setattr(generate_module, "FRESH_SAT_SIDE", side)
        oracle = _SatOracle(geometry, None)
        try:
            states = rng_states(2, np.arange(3))
            carved = carve(geometry, states, oracle=oracle, by_count=True, test_seconds=0.0)
        finally:
            oracle.close()
        assert carved.done.all() and (carved.hard > 0).all()
        for b in range(3):
            assert check_witnesses(geometry, carved.puzzles[b], carved.witness[b]) is None
        made.append(carved.puzzles)
    assert np.array_equal(made[0], made[1])
