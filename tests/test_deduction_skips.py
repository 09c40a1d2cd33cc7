"""The engine's shortcuts that must not change a step: the rules skipped where the XY search
found nothing (``chain_search.no_xy_chain``), and the one compiled call that checks, applies and
looks for a contradiction after a step (``Board.apply_checked``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest
from conftest import read_lines, shared_file

from sudoku_cp.deduction.board import Board, Contradiction
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rules import select_rules
from sudoku_cp.deduction.rules.chain_search import XY, chain_search, grouped_search, no_xy_chain
from sudoku_cp.deduction.rules.chains import (
    find_bilocation_conflicting_paths,
    find_bilocation_cycle,
    find_bilocation_repetitive_cycle,
    find_bivalue_conflicting_paths,
    find_bivalue_repetitive_cycle,
)
from sudoku_cp.deduction.rules.local import LOCAL_RULES, MARK_COLUMNS, find_local, run_local_ahead
from sudoku_cp.deduction.rules.twosat import failed_literals
from sudoku_cp.deduction.step import Step
from sudoku_cp.formats import parse_grid
from sudoku_cp.outcome import Status

#: Sudoku Exchange puzzles (lines 4, 10 and 15 of the file) whose rating passes through states
#: where the XY search finds nothing and the heavier rules are tried.
_HARD = (3, 9, 14)
_SKIPPED = {
    "bilocation-cycle": find_bilocation_cycle,
    "bilocation-repetitive-cycle": find_bilocation_repetitive_cycle,
    "bilocation-conflicting-paths": find_bilocation_conflicting_paths,
    "bivalue-repetitive-cycle": find_bivalue_repetitive_cycle,
    "bivalue-conflicting-paths": find_bivalue_conflicting_paths,
}


def _board(text: str) -> Board:
    board = Board.from_grid(parse_grid(text))
    board.check()
    return board


def test_no_xy_chain_only_after_an_empty_search() -> None:
    """Unsearched: no answer to lean on; searched with a chain found: not empty."""
    lines = read_lines(shared_file("sudoku9/sudoku_exchange_diabolical_10k.txt"), 1)
    board = _board(lines[0])
    assert not no_xy_chain(board)
    found = chain_search(board, XY)
    assert max(found.links) >= 0  # a fresh puzzle has chains everywhere
    assert not no_xy_chain(board)


def test_skipped_rules_find_nothing_where_the_xy_search_found_nothing() -> None:
    """At every state where the engine tries the rules ``no_xy_chain`` skips, their own finders
    (unskipped) find nothing and 2-SAT has no failed literal: the skip changes no answer."""
    lines = read_lines(shared_file("sudoku9/sudoku_exchange_diabolical_10k.txt"), max(_HARD) + 1)
    seen = {"states": 0}

    def checked(name: str, find: Callable[[Board], Step | None]) -> Callable[[Board], Step | None]:
        def check(board: Board) -> Step | None:
            if no_xy_chain(board):
                seen["states"] += 1
                if name == "2-sat":
                    _, failed = failed_literals(board.copy())
                    assert not failed.any()
                else:
                    assert _SKIPPED[name](board.copy()) is None, name
            return find(board)

        return check

    rules = tuple(
        replace(rule, find=checked(rule.name, rule.find)) if rule.name in (*_SKIPPED, "2-sat") else rule
        for rule in select_rules()
    )
    for index in _HARD:
        result = deduce(parse_grid(lines[index]), rules, record=False)
        assert result.status is Status.SOLVED
    assert seen["states"] >= 6  # the check ran: each rule at least at one state of each puzzle


def test_apply_checked_applies_and_checks_as_apply_then_check() -> None:
    lines = read_lines(shared_file("sudoku9/sudoku_exchange_diabolical_10k.txt"), 1)
    board = _board(lines[0])
    cell = int(np.flatnonzero(board.values == 0)[0])
    digits = np.flatnonzero(board.cand[cell])
    other = board.copy()
    eliminations = np.array([[cell, digits[0]]], dtype=np.int64)
    placements = np.zeros((0, 2), dtype=np.int64)
    other.apply(placements, eliminations)
    assert board.apply_checked(placements, eliminations) == (0, -1, -1)
    assert (board.cand == other.cand).all() and (board.values == other.values).all()
    # a placement: the digit leaves its peers too
    place = np.array([[cell, digits[1]]], dtype=np.int64)
    other.apply(place, eliminations[:0])
    assert board.apply_checked(place, eliminations[:0]) is not None
    assert (board.cand == other.cand).all() and (board.values == other.values).all()


@pytest.mark.parametrize(
    "rows",
    [
        ((), ()),  # changes nothing
        ((), ((0, 0),)),  # a given's cell: not open (the first line's first cell holds a digit)
        ((), ((80, 9),)),  # a digit out of range
        ((), ((81, 0),)),  # a cell out of range
        (((0, 1),), ()),  # a placement on a placed cell
    ],
)
def test_apply_checked_refuses_a_bad_step_and_leaves_the_board(rows: tuple[tuple, tuple]) -> None:
    board = _board("4" + "." * 80)
    before = board.copy()
    placements = np.array(rows[0], dtype=np.int64).reshape(-1, 2)
    eliminations = np.array(rows[1], dtype=np.int64).reshape(-1, 2)
    assert board.apply_checked(placements, eliminations) is None
    assert (board.cand == before.cand).all() and (board.values == before.values).all()


def test_apply_checked_finds_the_contradiction_check_finds() -> None:
    board = _board("12345678." + "." * 72)  # the last cell of row 1 keeps 9 alone
    other = board.copy()
    gone = np.array([[8, 8]], dtype=np.int64)
    none = np.zeros((0, 2), dtype=np.int64)
    found = board.apply_checked(none, gone)
    assert found is not None and found[0] == 1 and found[1] == 8
    other.apply(none, gone)
    with pytest.raises(Contradiction) as old:
        other.check()
    with pytest.raises(Contradiction) as new:
        board.raise_found(*found)
    assert str(new.value) == str(old.value)


def test_rules_run_ahead_by_the_fixed_point_match_their_finders() -> None:
    """``run_local_ahead`` stuck: each rule run ahead has the record ``find_local`` makes on that
    state (xy-wing firing somewhere among the puzzles, so the records are compared, not only zeros)."""
    lines = read_lines(shared_file("sudoku9/sudoku_exchange_diabolical_10k.txt"), 40)
    ahead_rules = ("xy-wing", "naked-quad", "jellyfish", "hidden-quad")
    ahead = np.array([LOCAL_RULES.index(name) for name in ahead_rules], dtype=np.int64)
    enabled = np.zeros(len(LOCAL_RULES), dtype=np.uint8)
    enabled[: LOCAL_RULES.index("hidden-triple") + 1] = 1
    fired = 0
    for line in lines:
        board = _board(line)
        t = board.tables
        rec = np.empty((board.cand.size + board.cand.shape[0] + 36, 3), dtype=np.int64)
        recs = np.empty((len(ahead), len(rec), 3), dtype=np.int64)
        counts = np.zeros(len(ahead), dtype=np.int64)
        done = run_local_ahead(
            board.cand, board.values, t.units, t.cell_units, t.peers, enabled,
            np.zeros(len(LOCAL_RULES), dtype=np.int64), rec, 10_000, np.empty((0, 3), dtype=np.int64),
            np.empty((0, MARK_COLUMNS), dtype=np.int64), np.zeros(4, dtype=np.int64), ahead, recs, counts,
        )  # fmt: skip
        if done != 0:
            assert (counts == -1).all()
            continue
        for i, rule_id in enumerate(ahead.tolist()):
            count = find_local(rule_id, board.cand, board.values, t.units, t.cell_units, t.peers, rec)
            assert counts[i] == count
            assert (recs[i, :count] == rec[:count]).all()
            fired += count > 0
    assert fired >= 3


def test_grouped_walks_read_from_the_kernel_paths() -> None:
    """``GroupedFound.walk`` (made when asked) reads each traced node's cells, -1s left out: a
    found kind has one node per path row, each ending cell of a group present; none: ()."""
    lines = read_lines(shared_file("sudoku9/sudoku_exchange_diabolical_10k.txt"), 20)
    found = 0
    for line in lines:
        answer = grouped_search(_board(line))
        for k in range(2):
            rows = answer.paths[k]
            walk = answer.walk[k]
            if answer.links[k] < 0:
                assert walk == ()
                continue
            found += 1
            assert len(walk) == len(rows) > 0
            for node, row in zip(walk, rows, strict=True):
                assert node and node == tuple(int(c) for c in row if c >= 0)
    assert found >= 10
