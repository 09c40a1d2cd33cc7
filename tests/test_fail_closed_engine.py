"""Fail closed (issue 24): a contradiction the rules reach after some steps, unchecked (``rate``,
``explain`` without ``--check``), is unsat only once another path (CaDiCaL on the plain extended
CNF, ``confirm.confirm_no_more``) agrees; stopped, it is unknown; refuted, an error naming the rule.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.backends import confirm as confirm_module
from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import RuleBug, deduce
from sudoku_cp.deduction.rules import Rule, select_rules
from sudoku_cp.deduction.step import Step
from sudoku_cp.formats import parse_grid
from sudoku_cp.outcome import REASON_TIME_LIMIT, Status

pytestmark = pytest.mark.timeout(120)

# Royle's first 17-clue puzzle: unique, solved by the local rules.
UNIQUE = parse_grid(read_lines(DATA / "clue17_100.txt", 1)[0])
# Consistent givens, no solution; the local rules find the contradiction after 20 steps.
NO_SOLUTION = parse_grid(".7.....9...34.9578..1857.3....27..41.......8.1...9.7..72.3....9..6...8...5.78.6.3")
NONE = np.zeros((0, 2), dtype=np.int64)
GIVENS = int(np.count_nonzero(UNIQUE.values))


def _bogus_rule(after: int = 3) -> Rule:
    """A broken rule: once ``after`` digits beyond the givens are placed, it removes every
    candidate of the first open cell, a contradiction on a puzzle that has a solution."""

    def find(board: Board) -> Step | None:
        if int(np.count_nonzero(board.values)) < GIVENS + after:
            return None
        cell = int(np.flatnonzero(board.values == 0)[0])
        digits = np.flatnonzero(board.cand[cell])
        return Step("bogus", NONE, np.stack([np.full(len(digits), cell), digits], axis=1))

    return Rule("bogus", "test", "removes every candidate of a cell", 0.5, find)


@pytest.mark.parametrize("record", [True, False])
def test_a_false_contradiction_after_steps_is_an_error_naming_the_rule(record: bool) -> None:
    with pytest.raises(RuleBug, match="bogus") as raised:
        deduce(UNIQUE, (_bogus_rule(), *select_rules()), record=record)
    assert "contradiction" in str(raised.value) and "has no candidate left" in str(raised.value)


@pytest.mark.parametrize("record", [True, False])
def test_a_true_contradiction_after_steps_is_confirmed_unsat(record: bool) -> None:
    result = deduce(NO_SOLUTION, record=record)
    assert result.status is Status.UNSAT
    assert result.step_count > 0  # reached after steps, not at the start
    assert result.reason is not None and "R6C4 has no candidate left" in result.reason


@pytest.mark.parametrize("record", [True, False])
def test_an_unconfirmed_contradiction_is_unknown_not_unsat(
    record: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(confirm_module, "solve_limited", lambda *args: None)  # the confirmation stopped
    result = deduce(NO_SOLUTION, record=record)
    assert result.status is Status.UNKNOWN
    assert result.reason is not None and result.reason.startswith(REASON_TIME_LIMIT)
    assert "R6C4 has no candidate left" in result.reason and "confirming" in result.reason


def test_a_spent_deadline_leaves_the_contradiction_unknown() -> None:
    # A deadline spent before the solve: the loop's own check stops first, unknown either way.
    result = deduce(NO_SOLUTION, record=False, time_limit=0.0)
    assert result.status is Status.UNKNOWN
