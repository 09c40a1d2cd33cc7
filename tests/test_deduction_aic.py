"""The grouped one-digit search's memory of fruitless digits changes no answer."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.deduction.board import Board
from sudoku_cp.deduction.rules import chain_search as cs
from sudoku_cp.formats import parse_puzzles

pytestmark = pytest.mark.timeout(120)

#: Minimal puzzles that need fishes and chains (seed-1 generator output, rated 6-7.5).
PUZZLES = [
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
]


def _answers(board: Board) -> tuple[object, object]:
    cs._state[0] = None  # no per-state answer: search again
    return cs.chain_search(board, cs.X), cs.grouped_search(board)


def _same(a: object, b: object) -> bool:
    return repr(a) == repr(b)


def test_a_skipped_digit_gives_the_answers_of_a_fresh_search() -> None:
    """Remove candidates one at a time (states a digit at a time changes); at every state the
    searches with the memory of earlier states answer as with none."""
    for item in parse_puzzles("\n".join(PUZZLES) + "\n"):
        assert item.grid is not None
        board = Board.from_grid(item.grid)
        rng = np.random.default_rng(0)
        cs._fruitless_digits.clear()
        skipped = 0
        for _ in range(25):
            remembered = _answers(board)
            skipped += sum(key in cs._fruitless_digits for key in cs._fruitless(board, "grouped")[0])
            memory = set(cs._fruitless_digits)
            cs._fruitless_digits.clear()
            assert _same(remembered, _answers(board))
            cs._fruitless_digits.update(memory)
            open_cands = np.argwhere((board.cand != 0) & (board.values == 0)[:, None])
            several = [(c, d) for c, d in open_cands if board.cand[c].sum() > 2]
            if not several:
                break
            c, d = several[int(rng.integers(len(several)))]
            board.cand[c, d] = 0  # a smaller board: not a deduction, only a new state to search
        assert skipped > 0
