"""Carving by count (``carve(by_count=True)``, the default from 16x16 on): the givens the rules can
spare go first, the rest are counted to two by the backtrack search; still unique and minimal."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.api import count_solutions
from sudoku_cp.deduction.generate import _SatOracle, generate_puzzle
from sudoku_cp.deduction.proof import StepProver
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.native.carve import BY_COUNT_SIDE, carve, check_witnesses, rng_states

pytestmark = pytest.mark.timeout(300)


def _count(values: np.ndarray, geometry: Geometry) -> int:
    """Solutions up to two by Algorithm X (a solver neither the carving nor its proofs use)."""
    n = geometry.n
    return count_solutions(Grid(geometry, values.reshape(n, n)), "dlx", limit=2).count


def _assert_unique_and_minimal_by_sat(puzzle: Grid, solution: Grid) -> None:
    """One solution, and each given's removal gives a second one: SAT with the solution blocked
    (``StepProver.other_solution``), a path apart from the carving's search and its witnesses."""
    n = puzzle.n
    flat = puzzle.values.reshape(-1)
    with StepProver(Grid.empty(puzzle.geometry)) as sat:
        assert sat.other_solution(puzzle.values, solution.values) is False, "not unique"
        for cell in np.flatnonzero(flat):
            values = flat.copy()
            values[cell] = 0
            assert sat.other_solution(values.reshape(n, n), solution.values) is True, (
                f"removing the given at cell {cell} keeps one solution: not minimal"
            )


@pytest.mark.parametrize("box", [(2, 3), (3, 3), (2, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("symmetric", [False, True], ids=["minimal", "symmetric"])
def test_carving_by_count_is_unique_and_minimal_on_small_grids(box: tuple[int, int], symmetric: bool) -> None:
    geometry = Geometry(*box)
    carved = carve(geometry, rng_states(7, np.arange(4)), symmetric=symmetric, by_count=True)
    assert carved.done.all()
    cells = geometry.cells
    for b in range(4):
        puzzle = carved.puzzles[b]
        assert check_witnesses(geometry, puzzle, carved.witness[b], symmetric=symmetric) is None
        assert np.array_equal(puzzle[puzzle != 0], carved.solutions[b][puzzle != 0])
        assert _count(puzzle, geometry) == 1
        for cell in np.flatnonzero(puzzle):
            partner = cells - 1 - cell
            if symmetric and partner < cell:
                continue
            values = puzzle.copy()
            values[cell] = 0
            if symmetric:
                values[partner] = 0
            assert _count(values, geometry) == 2, f"the given at cell {cell} can go: not minimal"


def test_every_count_the_test_time_stops_goes_to_the_oracle() -> None:
    """No time for the backtrack counts: SAT answers every test; the puzzles are the same kind."""
    geometry = Geometry(3, 3)
    oracle = _SatOracle(geometry, None)
    try:
        carved = carve(geometry, rng_states(2, np.arange(3)), oracle=oracle, by_count=True, test_seconds=0.0)
    finally:
        oracle.close()
    assert carved.done.all() and (carved.hard > 0).all()
    for b in range(3):
        puzzle = carved.puzzles[b]
        assert check_witnesses(geometry, puzzle, carved.witness[b]) is None
        assert _count(puzzle, geometry) == 1
        for cell in np.flatnonzero(puzzle):
            values = puzzle.copy()
            values[cell] = 0
            assert _count(values, geometry) == 2


def test_by_count_is_the_default_from_16x16_on() -> None:
    assert BY_COUNT_SIDE == 16
    made = generate_puzzle(Geometry(4, 4), 1, 0)
    assert made is not None and made.proof == "backtrack"
    _assert_unique_and_minimal_by_sat(made.puzzle, made.solution)


@pytest.mark.slow
@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_more_16x16_puzzles_are_unique_and_minimal_by_sat(attempt: int) -> None:
    made = generate_puzzle(Geometry(4, 4), 3, attempt)
    assert made is not None
    _assert_unique_and_minimal_by_sat(made.puzzle, made.solution)
