"""Nishio as a rule (Eppstein 2012): the DAG's closures of every digit in one batch, checked
against the pattern-overlay and SAT methods, on 9x9, 2x3, 2x4 and 4x4 boxes; the Nishio paper's
Figure 1 situation (a puzzle that needs Nishio and is solved with it)."""

from __future__ import annotations

import numpy as np
import pytest
from test_deduction_matching import assert_sound, eliminated, open_board, random_board
from test_nishio_dag import FIGURE_1_LIKE

from sudoku_cp.deduction.board import Board, Contradiction
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rules import RULES, Rule, select_rules
from sudoku_cp.deduction.rules.matching import digit_matching
from sudoku_cp.deduction.rules.nishio import nishio
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.nishio.api import solve_nishio
from sudoku_cp.nishio.instance import NishioInstance
from sudoku_cp.nishio.text import parse_instance
from sudoku_cp.outcome import Status

G9, G23, G24, G44 = Geometry(3, 3), Geometry(2, 3), Geometry(2, 4), Geometry(4, 4)

#: sudoku_exchange_diabolical_10k.txt line 5457 (../shared/data/sudoku9; grantm/sudoku-exchange-
#: puzzle-bank, public domain), found by searching the 9x9 corpora for a puzzle that every rule but
#: Nishio leaves stuck and that Nishio finishes.  Like the paper's Figure 1 (whose givens' positions
#: were not recovered, NOTES.md 1.6) the only rule beyond the local ones it needs is one Nishio step:
#: digit 6 fits its candidates in 11 ways, none of them through R1C5.
NEEDS_NISHIO = "302000108090100040800040009000804020007000300060503000600050002050002080904000503"

_LOCAL_FAMILIES = ["singles", "locked", "subsets", "fish", "wings"]


def _with_nishio(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    extra = tuple(rule for rule in RULES if rule.family == "nishio")
    return tuple(sorted((*rules, *extra), key=lambda rule: rule.weight))


def _digit_board(geometry: Geometry, digit: int, mask: np.ndarray) -> Board:
    """An open board whose candidates of ``digit`` are exactly ``mask``; every other digit open."""
    board = open_board(geometry)
    board.cand[:, digit] = np.asarray(mask, dtype=np.uint8).reshape(-1)
    return board


def test_the_figure_1_situation_needs_nishio_and_is_solved_with_it() -> None:
    grid = parse_grid(NEEDS_NISHIO)
    local = select_rules(_LOCAL_FAMILIES)
    assert deduce(grid, local, record=False).status is Status.STUCK
    # the forcing chains (8.2, tried after Nishio) would finish it too: left out with Nishio
    without = tuple(rule for rule in select_rules() if rule.family not in ("nishio", "forcing"))
    assert any(rule.family == "matching" for rule in without) and any(r.name == "2-sat" for r in without)
    assert deduce(grid, without, record=False).status is Status.STUCK
    solved = deduce(grid, _with_nishio(local))
    assert solved.status is Status.SOLVED and solved.counts["nishio"] == 1
    at = next(k for k, step in enumerate(solved.steps) if step.rule == "nishio")
    step = solved.steps[at]
    assert step.digits == (5,) and eliminated(step) == {(4, 5)}  # 6 leaves R1C5
    assert step.note == (
        "digit 6 fits its candidates in 11 ways (once in every row, column and box); none uses R1C5"
    )
    # The board just before the step: the elimination holds in every solution, and the
    # rows x columns relaxation (digit-matching) cannot see it.
    before = deduce(grid, local, record=False).board
    assert nishio(before) is not None and eliminated(nishio(before)) == {(4, 5)}
    assert digit_matching(before) is None
    assert_sound(before, step)
    full = deduce(grid, _with_nishio(without))
    assert full.status is Status.SOLVED and full.counts["nishio"] == 1


def test_nishio_on_the_figure_1_like_digit_7_removes_r9c5() -> None:
    instance = parse_instance(FIGURE_1_LIKE)
    board = _digit_board(G9, 6, instance.mask)
    step = nishio(board)
    assert step is not None and step.rule == "nishio" and step.digits == (6,)
    closure = solve_nishio(instance, "overlay").closure
    assert closure is not None
    expected = {(r * 9 + c, 6) for r, c in zip(*np.nonzero(instance.mask & ~closure), strict=True)}
    assert (8 * 9 + 4, 6) in eliminated(step) and eliminated(step) == expected
    assert "fits its candidates in 4 ways" in step.note and "R9C5" in step.note


@pytest.mark.parametrize(("geometry", "seed"), [(g, s) for g in (G23, G24, G9) for s in range(5)])
def test_nishio_removes_exactly_what_pattern_overlay_leaves_out(geometry: Geometry, seed: int) -> None:
    board, solution = random_board(geometry, seed, blank=0.7, drop=0.45)
    n = board.n
    step = nishio(board)
    open_cells = (board.values == 0).reshape(n, n)
    expected: set[tuple[int, int]] = set()
    for d in range(n):
        instance = NishioInstance(geometry, board.cand[:, d].reshape(n, n).astype(bool))
        closure = solve_nishio(instance, "overlay").closure
        assert closure is not None
        cells = np.flatnonzero((instance.mask & ~closure & open_cells).reshape(-1))
        if cells.size:
            expected = {(int(c), d) for c in cells}
            break
    if step is None:
        assert not expected
        return
    assert eliminated(step) == expected
    assert_sound(board, step)
    truth = solution.values.reshape(-1) - 1
    assert all(truth[c] != d for c, d in eliminated(step))


@pytest.mark.parametrize("seed", range(2))
def test_nishio_on_16x16_agrees_with_the_sat_method(seed: int) -> None:
    board, solution = random_board(G44, seed, blank=0.75, drop=0.5)
    step = nishio(board)
    assert step is not None
    (d,) = step.digits
    instance = NishioInstance(G44, board.cand[:, d].reshape(16, 16).astype(bool))
    closure = solve_nishio(instance, "sat").closure
    assert closure is not None
    dropped = instance.mask & ~closure & (board.values == 0).reshape(16, 16)
    assert eliminated(step) == {(int(c), d) for c in np.flatnonzero(dropped.reshape(-1))}
    truth = solution.values.reshape(-1) - 1
    assert all(truth[c] != d for c, d in eliminated(step))


@pytest.mark.parametrize("geometry", [G9, G23, G24])
def test_nishio_does_not_fire_when_every_candidate_is_in_a_placement(geometry: Geometry) -> None:
    assert nishio(open_board(geometry)) is None
    board, _ = random_board(geometry, 3, blank=0.5, drop=0.0)
    while (step := nishio(board)) is not None:  # to Nishio's fixed point
        board.apply(step.placements, step.eliminations)
    assert nishio(board) is None


# S with a perfect rows x columns matching and every unit occupied, yet no placement (the only
# matchings put two cells in one box): found by a seeded random search, kept here as fixtures.
NO_PLACEMENT = {
    (2, 2): "x...\n.xx.\nx..x\n..x.\n",
    (2, 3): "x.....\n...x..\n....x.\nx....x\n.x..x.\n..x...\n",
    (3, 3): (
        "........x\nx......x.\n...x.....\n.x..x....\n....x....\n......x..\nx........\n..x......\n...x.xx..\n"
    ),
}


@pytest.mark.parametrize("shape", sorted(NO_PLACEMENT))
def test_nishio_raises_contradiction_when_a_digit_has_no_placement(shape: tuple[int, int]) -> None:
    geometry = Geometry(*shape)
    instance = parse_instance(NO_PLACEMENT[shape], box=shape)
    board = _digit_board(geometry, 1, instance.mask)
    board.check()  # every unit still has a place for digit 2
    digit_matching(board)  # the rows x columns relaxation sees no contradiction
    with pytest.raises(Contradiction, match="digit 2 cannot be placed once in every row, column and box"):
        nishio(board)


def test_nishio_is_registered_after_the_other_rules() -> None:
    rule = next(rule for rule in RULES if rule.name == "nishio")
    assert rule.family == "nishio" and 7.5 <= rule.weight <= 8.0
    assert all(other.weight < rule.weight for other in RULES if other.family in ("matching", "twosat"))
