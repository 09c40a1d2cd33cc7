"""Carving on speculation and its repair (``sat_oracle.block_tests``' ``call_cap``,
``sat_oracle.repair``): from ``generate.SPECULATE_SIDE`` on a SAT test that spends its cap takes
its given out unproved, and the repair puts givens back until no other solution exists, keeping
a witness for every given: the puzzle is unique (checked here by other solvers) and minimal."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.checker import solution_problem
from sudoku_cp.deduction import generate as generate_module
from sudoku_cp.deduction.sat_oracle import block_tests, repair
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.native.backtrack import search_batch
from sudoku_cp.native.carve import ANSWERED, carve, check_witnesses, rng_states

pytestmark = pytest.mark.timeout(300)


def _count(geometry: Geometry, puzzle: np.ndarray) -> tuple[int, np.ndarray]:
    """Solutions of ``puzzle`` counted to two by the backtrack search (run to its end), and the first."""
    run = search_batch(geometry, puzzle[None, :], limit=2, keep=True, time_limit=60.0)
    count = int(run.counts[0])
    assert count == 2 or bool(run.complete[0])  # two found, or the search ran to its end
    return count, np.asarray(run.solutions[0]).reshape(-1)


def _speculative(geometry: Geometry, seed: int, share: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A minimal puzzle with witnesses, then a share of its givens taken out as a speculative
    carving would (every witness of a given left stays valid: givens only went)."""
    carved = carve(geometry, rng_states(seed, np.arange(1)))
    puzzle, solution = carved.puzzles[0].copy(), carved.solutions[0].copy()
    witness = carved.witness[0].copy()
    rng = np.random.default_rng(seed)
    givens = np.flatnonzero(puzzle)
    puzzle[rng.choice(givens, size=int(share * givens.size), replace=False)] = 0
    assert check_witnesses(geometry, puzzle, witness) is None
    return puzzle, solution, witness


@pytest.mark.parametrize(
    ("box", "seed"), [((3, 3), 1), ((3, 3), 2), ((2, 4), 3), ((3, 4), 4), ((4, 4), 5)], ids=str
)
def test_repair_makes_a_puzzle_with_spare_removals_unique_and_minimal(
    box: tuple[int, int], seed: int
) -> None:
    geometry = Geometry(*box)
    puzzle, solution, witness = _speculative(geometry, seed, 0.25)
    before = puzzle.copy()
    assert _count(geometry, puzzle)[0] == 2  # a quarter of a minimal puzzle's givens gone: not unique
    assert repair(geometry, puzzle, solution, witness, deadline=None, call_cap=20)
    assert check_witnesses(geometry, puzzle, witness) is None  # minimal: every given has a witness
    count, only = _count(geometry, puzzle)
    assert count == 1 and np.array_equal(only, solution)
    kept = puzzle != 0
    assert np.array_equal(puzzle[kept], solution[kept])  # givens are the known solution's digits
    assert np.count_nonzero(kept & (before == 0)) > 0  # some given was put back


def test_repair_leaves_a_unique_minimal_puzzle_as_it_is() -> None:
    geometry = Geometry(3, 3)
    carved = carve(geometry, rng_states(7, np.arange(1)))
    puzzle, solution = carved.puzzles[0].copy(), carved.solutions[0].copy()
    witness = carved.witness[0].copy()
    assert repair(geometry, puzzle, solution, witness, deadline=None, call_cap=20)
    assert np.array_equal(puzzle, carved.puzzles[0])


def test_repair_stopped_by_the_deadline_says_so() -> None:
    """The deadline passed: False (the caller hands out nothing), never a puzzle called unique."""
    geometry = Geometry(3, 3)
    puzzle, solution, witness = _speculative(geometry, 1, 0.25)
    assert not repair(geometry, puzzle, solution, witness, deadline=Deadline(0.0), call_cap=20)


def test_a_speculative_block_takes_out_what_its_cap_leaves_unanswered() -> None:
    """With a cap of one conflict each call that needs more answers "out" (False); every witness
    it gives is still a real one, every given it keeps the uncapped block keeps too."""
    geometry = Geometry(4, 4)
    carved = carve(geometry, rng_states(2, np.arange(1)))
    puzzle, solution = carved.puzzles[0].copy(), carved.solutions[0].copy()
    block = [int(c) for c in np.flatnonzero(puzzle)[:16]]
    full = block_tests(geometry, puzzle, solution, block, False, deadline=None)
    capped = block_tests(geometry, puzzle, solution, block, False, deadline=None, call_cap=1)
    assert full.status == ANSWERED and capped.status == ANSWERED
    assert all(found is not False for found in full.answers)  # a minimal puzzle: all stay
    assert any(found is False for found in capped.answers)  # some call needed a conflict or more
    current = puzzle.copy()
    for first, found in zip(block, capped.answers, strict=True):
        if found is False:
            current[first] = 0
            continue
        without = current.copy()
        without[first] = 0
        grid = np.asarray(found)
        assert grid[first] != solution[first]
        assert (
            solution_problem(Grid(geometry, without.reshape(16, 16)), Grid(geometry, grid.reshape(16, 16)))
            is None
        )
    # Without speculation (the repair's tests) a capped call leaves its given in, unanswered: on a
    # minimal puzzle each answer is then a witness or None, never "out".
    kept = block_tests(geometry, puzzle, solution, block, False, deadline=None, call_cap=1, speculate=False)
    assert kept.status == ANSWERED and len(kept.answers) == len(block)
    assert any(found is None for found in kept.answers)
    assert all(found is not False for found in kept.answers)
    with pytest.raises(ValueError, match="symmetric"):
        block_tests(geometry, puzzle, solution, block, True, deadline=None, call_cap=1)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_25x25_puzzle_carved_on_speculation_is_unique_by_another_solver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The 36x36 path on 25x25 (speculation from 25, 300 conflicts a test: about 11 s): the
    product checks the witnesses and proves uniqueness; a fresh glucose4 on the extended
    formula with the solution blocked finds no other solution."""
    from other_solver import assert_unique_by_glucose

    monkeypatch.setattr(generate_module, "SPECULATE_SIDE", 25)
    monkeypatch.setattr(generate_module, "SPECULATE_CONFLICTS", 300)
    geometry = Geometry(5, 5)
    made = generate_module.generate_puzzle(geometry, 1)
    assert made is not None and made.attempt == 0  # nothing is given up on speculation
    assert_unique_by_glucose(made.puzzle, made.solution)
