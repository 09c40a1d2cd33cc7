"""The deduction engine (sudoku_cp.deduction.engine.deduce): outcomes, order, and its two modes."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.api import solve
from sudoku_cp.checker import solution_problem
from sudoku_cp.deduction import engine
from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import Deduction, RuleBug, deduce
from sudoku_cp.deduction.rules import RULES, Rule, select_rules
from sudoku_cp.deduction.step import Step
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.outcome import REASON_TIME_LIMIT, Status
from sudoku_cp.random_grids import random_puzzle

SOLVED_BY_SINGLES = parse_grid(read_lines(DATA / "clue17_100.txt", 1)[0])
# norvig_top95.txt, line 4: the local rules get stuck on it after 43 steps.
HARD = parse_grid(read_lines(DATA / "norvig_top95.txt", 4)[3])
#: The compiled local rules (the rule table grows as rule modules join it; these tests pin the local set).
LOCAL = select_rules(["singles", "locked", "subsets", "fish", "wings"])
# Consistent givens, no solution; the local rules find it after 20 steps (R6C4 loses every digit).
NO_SOLUTION = parse_grid(".7.....9...34.9578..1857.3....27..41.......8.1...9.7..72.3....9..6...8...5.78.6.3")
CLASH = parse_grid("11" + "." * 79)
NONE = np.zeros((0, 2), dtype=np.int64)


def _solution(puzzle: Grid) -> np.ndarray:
    found = solve(puzzle)
    assert found.status is Status.SOLVED and found.solution is not None
    return found.solution.values.reshape(-1)


def test_a_puzzle_the_rules_solve() -> None:
    result = deduce(SOLVED_BY_SINGLES)
    assert result.status is Status.SOLVED and result.reason is None
    assert result.board.solved and result.board.candidate_count() == 0
    assert solution_problem(SOLVED_BY_SINGLES, result.board.grid()) is None
    assert np.array_equal(result.board.values, _solution(SOLVED_BY_SINGLES))
    assert result.step_count == len(result.steps) == sum(result.counts.values()) > 0
    assert list(result.counts) == [rule.name for rule in select_rules()]


def test_a_stuck_puzzle_keeps_its_candidates_and_guesses_nothing() -> None:
    result = deduce(HARD, LOCAL)
    assert result.status is Status.STUCK and result.reason is None and result.step_count == 43
    board = result.board
    assert not board.solved and board.candidate_count() > 0
    open_cells = board.open_cells()
    assert np.all(board.cand[open_cells].sum(axis=1) >= 2)  # no naked single left
    # Nothing was guessed: every digit of the solution is still a candidate of its cell.
    solution = _solution(HARD)
    assert np.all(board.cand[np.arange(81), solution - 1] == 1)
    assert np.all((board.values == 0) | (board.values == solution))
    for rule in LOCAL:
        assert rule.find(board) is None, rule.name


def test_a_puzzle_without_solution_ends_in_a_contradiction() -> None:
    recorded = deduce(NO_SOLUTION)
    fast = deduce(NO_SOLUTION, record=False)
    for result in (recorded, fast):
        assert result.status is Status.UNSAT
        assert result.reason == "R6C4 has no candidate left"
    assert recorded.counts == fast.counts and recorded.step_count == len(recorded.steps) == 20


def test_clashing_givens_are_unsat_at_once() -> None:
    for record in (True, False):
        result = deduce(CLASH, record=record)
        assert result.status is Status.UNSAT
        assert result.reason == "given 1 at R1C1 repeats in its row, column or box"
        assert result.steps == () and result.step_count == 0
        assert not result.board.values.any() and not result.board.cand.any()


@pytest.mark.parametrize(("record", "check"), [(True, False), (False, False), (True, True), (False, True)])
def test_a_spent_deadline_is_unknown(record: bool, check: bool) -> None:
    result = deduce(HARD, record=record, time_limit=Deadline(0), check=check)
    assert result.status is Status.UNKNOWN and result.reason == REASON_TIME_LIMIT


def test_the_step_limit_is_unknown() -> None:
    result = deduce(SOLVED_BY_SINGLES, max_steps=5)
    assert result.status is Status.UNKNOWN and result.reason == "the step limit (5) was reached"
    assert result.step_count == len(result.steps) == 5


def test_a_rule_selection_limits_the_engine() -> None:
    singles = select_rules(["singles"])
    result = deduce(HARD, singles)
    assert result.status is Status.STUCK
    assert list(result.counts) == ["hidden-single", "naked-single"]
    assert 0 < result.step_count < deduce(HARD, LOCAL).step_count


def _same(a: Deduction, b: Deduction) -> None:
    assert a.status is b.status and a.reason == b.reason
    assert a.counts == b.counts
    assert np.array_equal(a.board.values, b.board.values)
    assert np.array_equal(a.board.cand, b.board.cand)


def _sample() -> list[Grid]:
    lines = read_lines(DATA / "norvig_top95.txt") + read_lines(DATA / "forum_hardest_200.txt", 40)
    return [parse_grid(line) for line in lines + read_lines(DATA / "clue17_100.txt", 40)]


@pytest.mark.parametrize(
    "families",
    [None, ["singles"], ["singles", "locked"], ["singles", "subsets"], ["singles", "fish", "wings"]],
)
def test_record_and_fast_modes_agree_on_9x9(families: list[str] | None) -> None:
    rules = select_rules(families)
    statuses = set()
    for puzzle in _sample():
        recorded = deduce(puzzle, rules)
        _same(recorded, deduce(puzzle, rules, record=False))
        assert recorded.step_count == len(recorded.steps)
        statuses.add(recorded.status)
    assert Status.STUCK in statuses and (families is not None or Status.SOLVED in statuses)


@pytest.mark.parametrize("box", [(2, 3), (3, 2), (2, 4), (4, 4)])
def test_record_and_fast_modes_agree_on_other_shapes(box: tuple[int, int]) -> None:
    geometry = geometry_for_size(box[0] * box[1], box)
    rng = np.random.default_rng(sum(box))
    for fraction in (0.5, 0.6, 0.7, 0.75):
        puzzle = random_puzzle(geometry, fraction, rng)
        _same(deduce(puzzle), deduce(puzzle, record=False))


@pytest.mark.parametrize("line", [0, 3, 17])
def test_each_step_is_the_simplest_rule_that_applies(line: int) -> None:
    puzzle = parse_grid(read_lines(DATA / "norvig_top95.txt")[line])
    result = deduce(puzzle)
    assert result.step_count > 10
    board = Board.from_grid(puzzle)
    order = [rule.name for rule in result.rules]
    for step in result.steps:
        rank = order.index(step.rule)
        for simpler in result.rules[:rank]:
            assert simpler.find(board) is None, f"{simpler.name} applied before {step.rule}"
        again = result.rules[rank].find(board)  # the engine applies what the finder returns
        assert again is not None and np.array_equal(again.eliminations, step.eliminations)
        assert np.array_equal(again.placements, step.placements)
        board.apply(step.placements, step.eliminations)
    assert np.array_equal(board.cand, result.board.cand)


def _rule(find: object) -> Rule:
    return Rule("broken", "test", "a broken rule", 0.1, find)  # type: ignore[arg-type]


def test_a_rule_that_changes_nothing_or_names_a_non_candidate_is_a_bug() -> None:
    idle = _rule(lambda board: Step("broken", NONE, NONE))
    with pytest.raises(RuleBug, match="changes nothing"):
        deduce(SOLVED_BY_SINGLES, (idle, *RULES))
    given = int(np.flatnonzero(SOLVED_BY_SINGLES.values.reshape(-1))[0])
    stale = _rule(lambda board: Step("broken", NONE, np.array([[given, 0]])))
    with pytest.raises(RuleBug, match="not open"):
        deduce(SOLVED_BY_SINGLES, (stale, *RULES))


def test_time_limit_is_seconds_or_a_deadline() -> None:
    # As every public function: seconds from the call, a Deadline the caller shares, None or inf
    # for none; a bad number is refused before any work.
    assert deduce(HARD, time_limit=0).status is Status.UNKNOWN
    assert deduce(HARD, time_limit=0.0, record=False).status is Status.UNKNOWN
    assert deduce(SOLVED_BY_SINGLES, time_limit=float("inf")).status is Status.SOLVED
    assert deduce(SOLVED_BY_SINGLES, time_limit=Deadline(None), record=False).status is Status.SOLVED
    with pytest.raises(ValueError, match="time limit"):
        deduce(SOLVED_BY_SINGLES, time_limit=-1.0)


@pytest.mark.parametrize("line", [3, 4])
def test_the_compiled_recording_takes_the_steps_found_one_at_a_time(line: int) -> None:
    """Recording, the local rules' steps come from the compiled fixed point's log; with ``check``
    every step is found by its finder, checked and proved one at a time: the same steps, weights
    and rating."""
    puzzle = parse_grid(read_lines(DATA / "norvig_top95.txt")[line])
    g = puzzle.geometry
    recorded = deduce(puzzle)
    checked = deduce(puzzle, check=True)
    assert [step.to_json(g) for step in recorded.steps] == [step.to_json(g) for step in checked.steps]
    assert (recorded.weight, recorded.hardest, recorded.hardest_index) == (
        checked.weight,
        checked.hardest,
        checked.hardest_index,
    )
    _same(recorded, checked)
    assert len({step.rule for step in recorded.steps}) > 3


@pytest.mark.parametrize("record", [True, False])
def test_the_step_limit_holds_inside_the_compiled_fixed_point(record: bool) -> None:
    for limit in (1, 5, 64, 65):
        result = deduce(SOLVED_BY_SINGLES, max_steps=limit, record=record)
        assert result.status is Status.UNKNOWN and result.step_count == limit
        assert len(result.steps) == (limit if record else 0)


@pytest.mark.parametrize("record", [True, False])
def test_a_compiled_record_that_names_a_non_candidate_is_a_bug(
    record: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled fixed point refuses a record that its step check fails (``BAD_RECORD``); the
    engine names the rule and what is wrong, as for a rule written in Python."""
    given = int(np.flatnonzero(SOLVED_BY_SINGLES.values.reshape(-1))[0])

    def broken(*args: object) -> int:
        rec, info = args[7], args[11]
        assert isinstance(rec, np.ndarray) and isinstance(info, np.ndarray)
        rec[0] = (1, given, 0)
        info[:] = (0, 0, 1, 1)  # naked-single's record, one row
        return engine.BAD_RECORD

    monkeypatch.setattr(engine, "run_local_ahead", broken)
    with pytest.raises(RuleBug, match="rule naked-single named a candidate that is not open"):
        deduce(SOLVED_BY_SINGLES, record=record)
