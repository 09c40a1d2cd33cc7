"""Fail closed (issue 24, item 1): a step, contradiction or puzzle that was not decided is unknown.

Each path below once let an undecided answer through as a decision: a checked deduction applied
steps whose proofs were unknown, a contradiction whose confirmation the deadline stopped was
reported unsat, and a batch puzzle that no search looked at counted as searched with no solution.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.api import BackendOptions, solve_items
from sudoku_cp.backends import pysat_batch
from sudoku_cp.backends.pysat_batch import BatchPysat
from sudoku_cp.backends.registry import make_backend
from sudoku_cp.deduction import proof as proof_module
from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.proof import ProofStatus, StepProver
from sudoku_cp.deduction.rules import Rule, select_rules
from sudoku_cp.deduction.step import Step
from sudoku_cp.formats import parse_grid, parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.limits import Deadline
from sudoku_cp.outcome import REASON_TIME_LIMIT, Status

# Royle's first 17-clue puzzle: unique, solved by the local rules.
UNIQUE = parse_grid(read_lines(DATA / "clue17_100.txt", 1)[0])
# tdoku's serg benchmark, line 1: several solutions.
SEVERAL = parse_grid(read_lines(DATA / "serg_100.txt", 1)[0])
# Consistent givens, no solution; the local rules find the contradiction after 20 steps.
NO_SOLUTION = parse_grid(".7.....9...34.9578..1857.3....27..41.......8.1...9.7..72.3....9..6...8...5.78.6.3")
NONE = np.zeros((0, 2), dtype=np.int64)


def _guessing_uniqueness_rule() -> tuple[Rule, int, int]:
    """A uniqueness rule that places, once, the digit one solution of SEVERAL has where another
    solution differs: true of some solutions only, so its proof can only be unknown."""
    found = make_backend("pysat").search(SEVERAL, limit=2)
    assert found.count == 2
    first, second = (grid.reshape(-1) for grid in found.solutions[:2])
    cell = int(np.flatnonzero(first != second)[0])
    digit = int(first[cell]) - 1

    def find(board: Board) -> Step | None:
        if board.values[cell] != 0 or board.cand[cell, digit] == 0:
            return None
        return Step("guess-ur", np.array([[cell, digit]]), NONE)

    rule = Rule("guess-ur", "test", "places a digit only some solutions have", 4.5, find, uniqueness=True)
    return rule, cell, digit


def test_an_unproved_uniqueness_step_is_never_applied() -> None:
    rule, cell, _ = _guessing_uniqueness_rule()
    for record in (True, False):
        result = deduce(SEVERAL, (rule, *select_rules()), record=record, check=True)
        assert result.status is Status.UNKNOWN
        assert result.reason is not None
        assert "guess-ur" in result.reason and "unique solution" in result.reason
        assert result.counts["guess-ur"] == 0
        assert result.board.values[cell] == 0  # the guess was not placed
    # Unchecked, the rule's step stands: the check is what keeps it out.
    assert deduce(SEVERAL, (rule, *select_rules())).counts["guess-ur"] == 1


def test_a_step_whose_proof_the_clock_stopped_is_never_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proof_module, "solve_limited", lambda *args: None)  # every solve stopped
    for record in (True, False):
        result = deduce(UNIQUE, record=record, check=True)
        assert result.status is Status.UNKNOWN
        assert result.reason is not None and result.reason.startswith(REASON_TIME_LIMIT)
        assert "hidden-single" in result.reason  # the rule whose step was not proved
        assert result.step_count == 0 and result.steps == ()
        assert np.array_equal(result.board.values.reshape(UNIQUE.values.shape), UNIQUE.values)


def test_a_stopped_unsat_confirmation_is_unknown_not_unsat(monkeypatch: pytest.MonkeyPatch) -> None:
    real = StepProver._solve

    def whole_puzzle_stopped(self: StepProver, assumptions: list[int]) -> bool | None:
        return None if not assumptions else real(self, assumptions)

    monkeypatch.setattr(StepProver, "_solve", whole_puzzle_stopped)
    for record in (True, False):
        result = deduce(NO_SOLUTION, record=record, check=True)
        assert result.status is Status.UNKNOWN
        assert result.reason is not None and result.reason.startswith(REASON_TIME_LIMIT)
        assert "R6C4 has no candidate left" in result.reason
    monkeypatch.undo()  # the prover itself, stopped by a real (spent) deadline
    with StepProver(NO_SOLUTION) as prover:
        assert prover.confirm_unsat("R6C4 has no candidate left").status is ProofStatus.PROVED
        prover.deadline = Deadline(0)
        stopped = prover.confirm_unsat("R6C4 has no candidate left")
    assert stopped.status is ProofStatus.UNKNOWN and stopped.reason == REASON_TIME_LIMIT


def test_a_batch_puzzle_no_search_handled_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = read_lines(DATA / "forum_hardest_200.txt", 3)  # propagation leaves all three open
    real = pysat_batch._open_and_forced

    def forget_the_second(values: np.ndarray, dead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        todo, forced = real(values, dead)
        return todo[todo != 1], forced

    monkeypatch.setattr(pysat_batch, "_open_and_forced", forget_the_second)
    items = parse_puzzles("\n".join(lines))
    results = list(solve_items(items, BackendOptions("pysat")))
    assert [result.status for result in results] == [Status.SOLVED, Status.UNKNOWN, Status.SOLVED]
    assert results[1].error is not None and "no search" in results[1].error
    stack = np.stack([item.grid.values.reshape(-1) for item in items if item.grid is not None])
    answers = BatchPysat().search_arrays(geometry_for_size(9), stack, limit=2)
    assert answers.complete.tolist() == [True, False, True]
    assert answers.counts.tolist() == [1, 0, 1] and 1 in answers.reasons
