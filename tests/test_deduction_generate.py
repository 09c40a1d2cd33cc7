"""The generator: minimal given by given (or symmetric), unique, proved, reproducible, by level or rule."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.api import count_solutions
from sudoku_cp.checker import solution_problem
from sudoku_cp.deduction import generate as generate_module
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.generate import (
    GenerateError,
    _SatOracle,
    fill_givens,
    generate_puzzle,
    generate_puzzles,
    required_rules,
)
from sudoku_cp.deduction.rate import rate
from sudoku_cp.deduction.rules import RULES, select_rules
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.native.carve import carve, check_witnesses, rng_states

SHAPES = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)]


def _solutions(grid: Grid) -> int:
    """Solutions up to two, by a solver other than the generator's and its proofs' (Algorithm X)."""
    return count_solutions(grid, "dlx", limit=2).count


def assert_unique_and_minimal(puzzle: Grid, solution: Grid) -> None:
    """One solution, and removing any single given gives a second one (counted independently)."""
    n = puzzle.n
    flat = puzzle.values.reshape(-1)
    assert solution_problem(puzzle, solution) is None
    assert _solutions(puzzle) == 1
    for cell in np.flatnonzero(flat):
        values = flat.copy()
        values[cell] = 0
        assert _solutions(puzzle.with_values(values.reshape(n, n))) == 2, (
            f"removing the given at cell {cell} keeps one solution: not minimal"
        )


def assert_symmetric_unique_minimal(puzzle: Grid, solution: Grid) -> None:
    """Half-turn symmetric givens, one solution, and removing any pair gives a second one."""
    n = puzzle.n
    flat = puzzle.values.reshape(-1)
    given = flat != 0
    assert np.array_equal(given, given[::-1]), "givens are not symmetric under a half turn"
    assert solution_problem(puzzle, solution) is None
    assert _solutions(puzzle) == 1
    for cell in np.flatnonzero(given):
        partner = n * n - 1 - cell
        if partner < cell:
            continue  # each pair once
        values = flat.copy()
        values[[cell, partner]] = 0
        assert _solutions(puzzle.with_values(values.reshape(n, n))) == 2, (
            f"removing the pair at cells {cell}, {partner} keeps one solution: not minimal"
        )


@pytest.mark.parametrize("box", [*SHAPES, (3, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
def test_generated_puzzles_are_unique_and_minimal_given_by_given(box: tuple[int, int]) -> None:
    geometry = Geometry(*box)
    count = 1 if box == (3, 4) else 3 if box == (3, 3) else 5
    made = list(generate_puzzles(geometry, count, seed=5))
    assert len(made) == count
    for generated in made:
        assert generated.puzzle.geometry == geometry
        assert generated.puzzle.givens <= generated.filled
        assert generated.proof == "backtrack"
        assert_unique_and_minimal(generated.puzzle, generated.solution)


@pytest.mark.parametrize("box", SHAPES, ids=lambda b: f"{b[0]}x{b[1]}")
def test_symmetric_puzzles_are_minimal_among_pairs(box: tuple[int, int]) -> None:
    made = list(generate_puzzles(Geometry(*box), 3, seed=5, symmetric=True))
    assert len(made) == 3
    for generated in made:
        assert_symmetric_unique_minimal(generated.puzzle, generated.solution)


def test_the_default_is_minimal_where_the_symmetric_kind_is_not() -> None:
    """The old generator's puzzles kept single removable givens; the default keeps none."""
    geometry = Geometry(3, 3)
    removable = 0
    for generated in generate_puzzles(geometry, 6, seed=2, symmetric=True):
        flat = generated.puzzle.values.reshape(-1)
        for cell in np.flatnonzero(flat):
            values = flat.copy()
            values[cell] = 0
            removable += _solutions(generated.puzzle.with_values(values.reshape(9, 9))) == 1
    assert removable > 0  # symmetric pairs leave single givens that could go


def test_the_same_seed_gives_the_same_puzzles_and_another_seed_others() -> None:
    geometry = Geometry(3, 3)
    first = [g.puzzle for g in generate_puzzles(geometry, 3, seed=11)]
    again = [g.puzzle for g in generate_puzzles(geometry, 3, seed=11)]
    other = [g.puzzle for g in generate_puzzles(geometry, 3, seed=12)]
    assert first == again
    assert first != other
    assert len(set(first)) == 3


def test_an_attempt_is_reproducible_on_its_own_and_whatever_the_batch() -> None:
    geometry = Geometry(2, 3)
    made = list(generate_puzzles(geometry, 3, seed=4))
    alone = generate_puzzle(geometry, 4, made[2].attempt)
    assert alone is not None and alone.puzzle == made[2].puzzle
    many = list(generate_puzzles(geometry, 40, seed=4))
    assert [g.puzzle for g in many[:3]] == [g.puzzle for g in made]


def test_every_test_answered_by_sat_gives_the_same_kind_of_puzzle() -> None:
    """A node cap of 1 sends every carving test to the SAT oracle: still minimal and unique."""
    geometry = Geometry(2, 3)
    oracle = _SatOracle(geometry, None)
    try:
        carved = carve(geometry, rng_states(3, np.arange(4)), oracle=oracle, cap=1)
    finally:
        oracle.close()
    assert carved.done.all() and (carved.hard > 0).all()
    for b in range(4):
        assert check_witnesses(geometry, carved.puzzles[b], carved.witness[b]) is None
        puzzle = Grid(geometry, carved.puzzles[b].reshape(6, 6))
        assert_unique_and_minimal(puzzle, Grid(geometry, carved.solutions[b].reshape(6, 6)))


def test_a_wrong_witness_is_caught() -> None:
    geometry = Geometry(2, 3)
    carved = carve(geometry, rng_states(1, np.arange(1)))
    puzzle, witness = carved.puzzles[0], carved.witness[0].copy()
    assert check_witnesses(geometry, puzzle, witness) is None
    given = int(np.flatnonzero(puzzle)[0])
    broken = witness.copy()
    broken[given] = carved.solutions[0]  # the solution itself does not change the given
    assert "does not change it" in (check_witnesses(geometry, puzzle, broken) or "")
    broken = witness.copy()
    broken[given, :2] = broken[given, 1::-1]  # two cells of a row swapped: still a row, not a column
    assert check_witnesses(geometry, puzzle, broken) is not None


def test_a_puzzle_the_backtrack_proof_leaves_goes_to_sat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generate_module, "PROOF_SECONDS", 0.0)
    from sudoku_cp.native import backtrack

    real = backtrack.search_batch

    def stopped(*args: object, **kwargs: object) -> backtrack.BatchRun:
        run = real(*args, **kwargs)  # type: ignore[arg-type]
        return backtrack.BatchRun(
            run.counts * 0, run.complete & False, run.timed_out | True, run.nodes, run.solutions[:0],
            run.owner[:0], run.seconds, run.budget,
        )  # fmt: skip

    monkeypatch.setattr(backtrack, "search_batch", stopped)
    made = list(generate_puzzles(Geometry(2, 3), 3, seed=1))
    assert [g.proof for g in made] == ["sat"] * 3
    for generated in made:
        assert _solutions(generated.puzzle) == 1


def test_the_fill_is_solved_by_singles_and_keeps_the_pairs_order() -> None:
    geometry = Geometry(3, 3)
    filled = fill_givens(geometry, np.random.default_rng(3))
    assert filled is not None
    pairs, solution, _ = filled
    assert solution.is_complete
    values = np.zeros(81, dtype=np.int16)
    for pair in pairs:
        assert len(pair) in (1, 2)
        assert len(pair) == 2 or pair == (40,), "only the centre cell stands alone"
        values[list(pair)] = solution.values.reshape(-1)[list(pair)]
    start = Grid(geometry, values.reshape(9, 9))
    assert rate(start, select_rules(["singles"])).status.value == "solved"


@pytest.mark.parametrize(("box", "level"), [((3, 3), "medium"), ((2, 4), "easy"), ((3, 3), "extreme")])
def test_a_target_level_is_met_by_rejection(box: tuple[int, int], level: str) -> None:
    made = list(generate_puzzles(Geometry(*box), 2, seed=2, level=level))
    assert len(made) == 2
    for generated in made:
        assert generated.rating is not None and generated.rating.level == level
        assert rate(generated.puzzle).level == level


@pytest.mark.parametrize("name", ["x-wing", "xy-wing", "subsets"])
def test_required_rules_appear_in_the_explanation(name: str) -> None:
    made = list(generate_puzzles(Geometry(3, 3), 2, seed=3, require=[name]))
    assert len(made) == 2
    members = {rule.name for rule in RULES if name in (rule.name, rule.family)}
    for generated in made:
        steps = deduce(generated.puzzle, select_rules(), record=True).steps
        assert members & {step.rule for step in steps}, f"no {name} step"
        assert generated.rules is not None and members & set(generated.rules)


def test_several_required_rules_must_all_appear() -> None:
    made = list(generate_puzzles(Geometry(3, 3), 1, seed=3, require=["x-wing", "naked-pair"]))
    assert len(made) == 1 and made[0].rules is not None
    assert {"x-wing", "naked-pair"} <= set(made[0].rules)


def test_a_rare_rule_ends_with_what_was_found() -> None:
    assert list(generate_puzzles(Geometry(2, 2), 2, seed=0, require=["nishio"], max_attempts=25)) == []
    # Under a deadline it ends with what it found (on a quiet machine one may come in time).
    made = list(generate_puzzles(Geometry(3, 3), 2, require=["nishio"], time_limit=Deadline(0.5)))
    members = {rule.name for rule in RULES if "nishio" in (rule.name, rule.family)}
    assert len(made) <= 2 and all(found.rules is not None and members & set(found.rules) for found in made)


def test_an_unknown_rule_names_the_known_ones() -> None:
    with pytest.raises(GenerateError, match="unknown rule 'no-such-rule' for --require") as caught:
        required_rules(["no-such-rule"])
    message = str(caught.value)
    assert "families: singles, locked" in message and len(message) < 480
    assert [name for name, _ in required_rules([" x-wing", "fish"])] == ["x-wing", "fish"]


def test_rated_puzzles_carry_their_rating_without_filtering() -> None:
    made = list(generate_puzzles(Geometry(2, 2), 3, seed=0, rated=True))
    assert all(g.rating is not None and g.rating.level == "easy" for g in made)


def test_an_unreachable_level_stops_at_the_attempt_cap() -> None:
    made = list(generate_puzzles(Geometry(2, 2), 1, seed=0, level="extreme", max_attempts=20))
    assert made == []


def test_a_spent_deadline_makes_nothing() -> None:
    deadline = Deadline(0.0)
    assert list(generate_puzzles(Geometry(3, 3), 5, seed=0, time_limit=deadline)) == []
    assert generate_puzzle(Geometry(3, 3), 0, time_limit=deadline) is None


@pytest.mark.parametrize(
    ("count", "seed", "level"), [(-1, 0, None), (1, -2, None), (1, 0, "impossible"), (1, 0, "none")]
)
def test_bad_requests_are_refused(count: int, seed: int, level: str | None) -> None:
    with pytest.raises(GenerateError):
        list(generate_puzzles(Geometry(2, 2), count, seed, level))


def test_grids_past_the_native_search_are_refused() -> None:
    with pytest.raises(GenerateError, match="up to 64x64"):
        list(generate_puzzles(Geometry(9, 9), 1))


@pytest.mark.slow
@pytest.mark.parametrize("box", [(4, 4), (3, 5)], ids=["4x4", "3x5"])
def test_bigger_grids_are_unique_and_minimal(box: tuple[int, int]) -> None:
    made = generate_puzzle(Geometry(*box), 1, 0)
    assert made is not None
    assert_unique_and_minimal(made.puzzle, made.solution)


def test_from_fresh_sat_side_the_sat_proof_uses_the_puzzles_own_formula(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From ``FRESH_SAT_SIDE`` on (here lowered to 6x6) a puzzle the backtrack proof leaves is
    proved on a formula of its own: a unique puzzle is proved, one with a given taken out (two
    solutions) is not."""
    from sudoku_cp.native import backtrack

    def nothing(geometry: Geometry, givens: np.ndarray, **kwargs: object) -> backtrack.BatchRun:
        k = givens.shape[0]
        cells = givens.shape[1]
        return backtrack.BatchRun(
            np.zeros(k, np.int64), np.zeros(k, np.bool_), np.ones(k, np.bool_), np.zeros(k, np.int64),
            np.empty((0, cells), np.int16), np.empty(0, np.int64), np.zeros(k), 1,
        )  # fmt: skip

    monkeypatch.setattr(backtrack, "search_batch", nothing)
    monkeypatch.setattr(generate_module, "FRESH_SAT_SIDE", 6)
    geometry = Geometry(2, 3)
    carved = carve(geometry, rng_states(5, np.arange(1)))
    puzzle, solution = carved.puzzles[0], carved.solutions[0]
    loose = puzzle.copy()
    loose[np.flatnonzero(puzzle)[0]] = 0  # minimal: without any given, a second solution
    rows = np.stack([puzzle, loose])
    proofs = generate_module._prove_unique(geometry, rows, np.stack([solution, solution]), None, None)
    assert proofs == ["sat", None]
