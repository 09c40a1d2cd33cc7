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


# -- the block oracle (``sat_oracle.block_tests``, ``carve``'s ``block_oracle``) ----------------------


def _minimal(geometry: Geometry, seed: int) -> tuple[np.ndarray, np.ndarray]:
    carved = carve(geometry, rng_states(seed, np.arange(1)))
    return carved.puzzles[0].copy(), carved.solutions[0].copy()


@pytest.mark.parametrize("extra_first", [True, False])
def test_a_block_removes_the_spare_given_and_finds_the_others_witnesses(extra_first: bool) -> None:
    """A minimal puzzle plus one given of its solution: that given can go, no other can (the
    minimal puzzle's givens each have a witness, which keeps the spare given or not)."""
    from sudoku_cp.deduction.sat_oracle import block_tests
    from sudoku_cp.native.carve import ANSWERED

    geometry = Geometry(3, 3)
    puzzle, solution = _minimal(geometry, 5)
    spare = int(np.flatnonzero(puzzle == 0)[0])
    grown = puzzle.copy()
    grown[spare] = solution[spare]
    others = [int(c) for c in np.flatnonzero(puzzle)[:7]]
    block = [spare, *others] if extra_first else [*others, spare]
    got = block_tests(geometry, grown, solution, block, False, deadline=None)
    assert got.status == ANSWERED and len(got.answers) == len(block) and got.asked >= len(block)
    current = grown.copy()
    for first, found in zip(block, got.answers, strict=True):
        if found is False:
            current[first] = 0
            continue
        without = current.copy()
        without[first] = 0
        _assert_witness(geometry, without, first, int(solution[first]), np.asarray(found))
    # The spare first: it goes (the rest is the minimal puzzle), and every other given stays.
    # Last: the puzzle without the others removed so far decides; at least one given goes (were
    # none to go, the spare would be tested on the minimal puzzle itself).
    if extra_first:
        assert got.answers[0] is False and all(found is not False for found in got.answers[1:])
    else:
        assert any(found is False for found in got.answers)


def test_a_block_answers_as_the_per_test_oracle() -> None:
    """The block's answers, in order with removal one at a time, are the per-test oracle's."""
    from sudoku_cp.deduction.sat_oracle import block_tests

    geometry = Geometry(3, 4)
    carved = carve(geometry, rng_states(3, np.arange(1)))
    solution = carved.solutions[0]
    # A puzzle with spare givens: the minimal one plus every fourth cell of the solution.
    puzzle = carved.puzzles[0].copy()
    puzzle[::4] = solution[::4]
    block = [int(c) for c in np.flatnonzero(puzzle)[:16]]
    got = block_tests(geometry, puzzle, solution, block, False, deadline=None)
    oracle = _SatOracle(geometry, None)
    current = puzzle.copy()
    removed = 0
    try:
        for first, found in zip(block, got.answers, strict=True):
            without = current.copy()
            without[first] = 0
            alone = oracle(without, first, int(solution[first]))
            assert (alone is False) == (found is False), first
            if found is False:
                current = without
                removed += 1
    finally:
        oracle.close()
    assert removed > 0 and len(got.answers) == len(block)


def test_a_stopped_or_over_budget_block_answers_unknown_never_no_witness() -> None:
    """The deadline passed: no answer at all (STOPPED), not "no witness"; a budget of no
    conflict with one strike: the first SAT call gives the grid up (ABANDONED)."""
    from sudoku_cp.deduction.sat_oracle import block_tests
    from sudoku_cp.limits import Deadline
    from sudoku_cp.native.carve import ABANDONED, ANSWERED, STOPPED

    geometry = Geometry(4, 4)
    puzzle, solution = _minimal(geometry, 2)
    block = [int(c) for c in np.flatnonzero(puzzle)[:8]]
    got = block_tests(geometry, puzzle, solution, block, False, deadline=Deadline(0.0))
    assert got.status == STOPPED and got.answers == []
    got = block_tests(geometry, puzzle, solution, block, False, deadline=None, head_start=0, per_call=0)
    assert got.status == ABANDONED and got.asked == 1 and len(got.answers) < len(block)
    # A grid allowance that covers the block's own spending answers all of it, the same answers
    # (one conflict more: a call whose budget runs out at its last conflict is cut there).
    full = block_tests(geometry, puzzle, solution, block, False, deadline=None)
    capped = block_tests(
        geometry, puzzle, solution, block, False, deadline=None, head_start=full.spent + 1, per_call=0
    )
    assert capped.status == ANSWERED and capped.spent == full.spent and capped.asked == full.asked
    # A grid past its judged calls (``window``) is carved to its end whatever it spends.
    late = block_tests(
        geometry, puzzle, solution, block, False, deadline=None, asked=5, head_start=0, window=5
    )
    assert late.status == ANSWERED and late.spent == full.spent

    assert all(found is not False for found in got.answers)  # a minimal puzzle: every given stays


def test_a_grid_over_its_allowance_stops_at_it_not_a_round_later() -> None:
    """A SAT call the grid's allowance cuts stops near the allowance (CaDiCaL's budget overshoots
    by a few conflicts), not at the end of a 1,000-conflict round: a grid given up costs its
    allowance only.  The block's first test needs 36 conflicts; with 10 allowed it is cut."""
    from sudoku_cp.deduction.sat_oracle import ROUND_CONFLICTS, block_tests
    from sudoku_cp.native.carve import ABANDONED

    geometry = Geometry(4, 4)
    puzzle, solution = _minimal(geometry, 3)
    block = [int(c) for c in np.flatnonzero(puzzle)[:16]]
    first = block_tests(geometry, puzzle, solution, block[:1], False, deadline=None)
    assert first.asked == 1 and 10 < first.spent < ROUND_CONFLICTS
    got = block_tests(geometry, puzzle, solution, block, False, deadline=None, head_start=10, per_call=0)
    assert got.status == ABANDONED and got.asked == 1 and got.answers == []
    assert got.spent < first.spent


@pytest.mark.parametrize("symmetric", [False, True])
def test_carving_by_blocks_gives_the_per_test_puzzles(
    monkeypatch: pytest.MonkeyPatch, symmetric: bool
) -> None:
    """The block path (from REGION_SIDE on; here lowered to 16x16) carves the puzzles the
    per-test carving does, each shown minimal by its witnesses."""
    from sudoku_cp.native import carve as carve_module

    geometry = Geometry(4, 4)
    states = rng_states(4, np.arange(2))
    before = carve(geometry, states, symmetric=symmetric, by_count=True)
    monkeypatch.setattr(carve_module, "REGION_SIDE", 16)
    oracle = _SatOracle(geometry, None)
    try:
        after = carve(
            geometry, states, symmetric=symmetric, by_count=True, oracle=oracle, block_oracle=oracle
        )
    finally:
        oracle.close()
    assert after.done.all() and not after.abandoned.any() and (after.hard > 0).all()
    assert np.array_equal(before.puzzles, after.puzzles)
    for b in range(2):
        assert check_witnesses(geometry, after.puzzles[b], after.witness[b], symmetric=symmetric) is None


class _GiveUp:
    """A block oracle that gives attempt 0's grid up (its first block) and answers nothing."""

    def __init__(self) -> None:
        self.calls = 0

    def tests(
        self,
        puzzle: np.ndarray,
        solution: np.ndarray,
        firsts: object,
        symmetric: bool,
        spent: int,
        asked: int,
    ) -> object:
        from sudoku_cp.native.carve import ABANDONED, BlockAnswers

        self.calls += 1
        return BlockAnswers([], ABANDONED, 0, 1)


def test_a_grid_given_up_is_abandoned_and_the_next_attempt_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    from sudoku_cp.native import carve as carve_module

    geometry = Geometry(3, 3)
    monkeypatch.setattr(carve_module, "REGION_SIDE", 9)
    give_up = _GiveUp()
    carved = carve(geometry, rng_states(0, np.arange(2)), by_count=True, block_oracle=give_up)  # type: ignore[arg-type]
    assert give_up.calls == 2 and carved.abandoned.all() and not carved.done.any()
    # generate_puzzle: a grid given up (here the first SAT call, on an allowance of no conflict) moves
    # on to the next attempt; each is given up, so the time limit ends it with nothing.
    monkeypatch.setattr(carve_module, "REGION_SIDE", 16)
    monkeypatch.setattr(generate_module, "WITNESS_CONFLICTS", 0)
    monkeypatch.setattr(generate_module, "GRID_CONFLICTS", 0)
    tried: list[int] = []
    real = generate_module._made

    def counting(*args: object, **kwargs: object) -> object:
        tried.append(int(args[2][0]))  # type: ignore[index]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(generate_module, "_made", counting)
    # No cap on the grids given up here (GIVE_UP_MAX, below): on a fast machine 8 go within the
    # time limit, and the ninth would be carved to its end.
    monkeypatch.setattr(generate_module, "GIVE_UP_MAX", 10**9)
    assert generate_module.generate_puzzle(Geometry(4, 4), 0, time_limit=3.0) is None
    assert len(tried) > 2 and tried[:3] == [0, 1, 2]
    # After GIVE_UP_MAX grids given up, the next is carved to its end: the generator ends.
    monkeypatch.setattr(generate_module, "GIVE_UP_MAX", 2)
    made = generate_module.generate_puzzle(Geometry(4, 4), 0)
    assert made is not None and made.attempt == 2 and made.hard > 0


@pytest.mark.slow
def test_a_25x25_puzzle_is_unique_by_another_solver_and_the_same_for_its_seed() -> None:
    """25x25 by the block oracle (seed 6: its first grid passes, 3-4 CPU s): the puzzle keeps
    its solution's digits, a fresh glucose4 on the extended formula with the solution blocked
    finds no other solution, and the seed's attempt and puzzle are those logged in session 11
    (the give-up rule counts conflicts, never seconds)."""
    from other_solver import assert_unique_by_glucose

    from sudoku_cp.deduction.generate import generate_puzzle

    geometry = Geometry(5, 5)
    made = generate_puzzle(geometry, 6)
    assert made is not None and made.proof in ("backtrack", "sat")
    assert made.attempt == 0 and int(np.count_nonzero(made.puzzle.values)) == 252
    assert_unique_by_glucose(made.puzzle, made.solution)
