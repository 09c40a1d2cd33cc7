"""The rating fast paths take the steps of the full ones: terse steps, board stamps, rule-set plans."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.engine import deduce
from sudoku_cp.deduction.rules import chain_search as cs
from sudoku_cp.deduction.rules import select_rules
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.grid import Grid

pytestmark = pytest.mark.timeout(120)

#: Minimal puzzles (seed-1 generator output) whose solves take fishes, wings, grouped and XY chains.
PUZZLES = [
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
    "7....9.....4.....8.6..2..3...21.49..83....7...........2...984..........6....63.7.",
    "....5...7..46.81....2........1..49..738......2..13.......92.61......6.......452.8",
]


def _grids() -> list[Grid]:
    grids = []
    for item in parse_puzzles("\n".join(PUZZLES) + "\n"):
        assert item.grid is not None
        grids.append(item.grid)
    return grids


def test_terse_steps_change_what_the_full_steps_change() -> None:
    """At every state of the explained solves, every rule's step on a terse board places and
    removes what its full step does, with the same weight."""
    rules = select_rules()
    compared = shortened = 0
    for grid in _grids():
        deduction = deduce(grid, record=True)
        board = Board.from_grid(grid)
        for step in deduction.steps:
            for rule in rules:
                board.terse = False
                full = rule.find(board)
                board.terse = True
                terse = rule.find(board)
                board.terse = False
                assert (full is None) == (terse is None), rule.name
                if full is None or terse is None:
                    continue
                compared += 1
                assert terse.rule == full.rule
                assert np.array_equal(terse.placements, full.placements), rule.name
                assert np.array_equal(terse.eliminations, full.eliminations), rule.name
                assert terse.weight == full.weight, rule.name
                shortened += bool(full.note) and not terse.note
            board.apply(step.placements, step.eliminations)
    assert compared > 100 and shortened > 10  # the terse paths (chains, wings) were taken


def test_rate_mode_counts_and_weighs_the_recorded_steps() -> None:
    """record=False (terse steps, stamps) and record=True take the same steps: same counts,
    weight and hardest rule; the board comes back without stamp or terse mode."""
    for grid in _grids():
        fast = deduce(grid, record=False)
        full = deduce(grid, record=True)
        assert fast.counts == full.counts
        assert (fast.weight, fast.hardest, fast.status) == (full.weight, full.hardest, full.status)
        assert fast.board.stamp is None and not fast.board.terse
        assert np.array_equal(fast.board.values, full.board.values)


def test_a_stamp_names_one_state_and_apply_renews_it() -> None:
    """Without a stamp the state key is the board's bytes; with one, the stamp, renewed by each
    change the board makes and never given to another board."""
    grid = _grids()[0]
    board = Board.from_grid(grid)
    key = board.state_key()
    assert key == (board.geometry, board.values.tobytes(), board.cand.tobytes())
    board.stamp_anew()
    first = board.state_key()
    assert isinstance(first, int)
    other = Board.from_grid(grid)
    other.stamp_anew()
    assert other.state_key() != first
    open_cell = int(np.flatnonzero(board.values == 0)[0])
    digit = int(np.flatnonzero(board.cand[open_cell])[0])
    board.apply(np.zeros((0, 2), np.int64), np.array([[open_cell, digit]]))
    assert board.state_key() != first
    # a chain search's answer of the stamped state is not read for the next one
    before = cs.chain_search(board, cs.XY)
    board.stamp_anew()
    assert cs.searched(board, cs.XY) is None
    assert repr(cs.chain_search(board, cs.XY)) == repr(before)  # the same candidates: the same answer


def test_a_rule_set_given_as_a_list_is_read_each_time() -> None:
    """The engine keeps what it makes of a tuple of rules; a list may change between calls, and
    the change counts."""
    grid = _grids()[0]
    rules = list(select_rules(["singles"]))
    first = deduce(grid, rules, record=False)
    rules.extend(select_rules(["locked", "subsets", "fish", "xchains", "wings", "chains"]))
    second = deduce(grid, rules, record=False)
    assert set(first.counts) < set(second.counts)
    assert deduce(grid, tuple(rules), record=False).counts == second.counts
