"""nishio.puzzles: many puzzle states' digits answered in chunks, numbered, skipped on resume."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from sudoku_cp.checker import given_conflict
from sudoku_cp.executor import Executor
from sudoku_cp.formats import PuzzleItem, parse_puzzles
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.nishio.puzzles import NishioAsk, PuzzleAnswers, _clashing, answer_puzzles


def _batch() -> list[PuzzleItem]:
    lines = read_lines(DATA / "forum_hardest_200.txt", 30)
    lines[4:4] = ["12345", "11" + "." * 79]
    return parse_puzzles("\n".join(lines))


def _shown(answers: list[PuzzleAnswers]) -> list[tuple[object, ...]]:
    shown: list[tuple[object, ...]] = []
    for puzzle in answers:
        digits = [
            (
                d.digit,
                d.disagreement,
                [(r.method, r.status, None if r.closure is None else r.closure.tobytes()) for r in d.results],
            )
            for d in puzzle.digits
        ]
        lines = [line.split(',"seconds"')[0] for line in puzzle.lines]
        shown.append((puzzle.index, puzzle.first, puzzle.error, puzzle.unsat, digits, lines))
    return shown


@pytest.mark.parametrize(
    "ask",
    [NishioAsk("dag", count=True, json_lines=True), NishioAsk("matching"), NishioAsk("dag", count=True)],
    ids=["dag-lines", "matching", "dag"],
)
def test_local_processes_give_the_answers_made_here_numbered_in_output_order(ask: NishioAsk) -> None:
    items = _batch()
    here = list(answer_puzzles(items, None, ask))
    spread = list(answer_puzzles(items, None, ask, executor=Executor(jobs=2, window=2)))
    assert _shown(spread) == _shown(here)
    assert [p.first for p in here] == [0, 9, 18, 27, 36, 37] + [38 + 9 * k for k in range(26)]
    assert [p.error is not None for p in here].count(True) == 2


def test_skipped_instances_leave_their_puzzles_out_unless_a_digit_is_missing() -> None:
    items = _batch()
    ask = NishioAsk("dag", json_lines=True)
    skip = set(range(0, 20)) - {10}  # three digits each: puzzles at 0, 3, 6, 9, 12 (invalid), 13, ...
    got = [p.first for p in answer_puzzles(items, [1, 5, 9], ask, skip=skip)]
    assert got[:3] == [9, 20, 23] and len(got) == len(items) - 7


@settings(max_examples=40)
@given(shape=st.sampled_from([(2, 2), (2, 3), (3, 3)]), seed=st.integers(0, 2**32 - 1))
def test_the_batch_check_of_equal_givens_agrees_with_the_one_grid_check(
    shape: tuple[int, int], seed: int
) -> None:
    geometry = Geometry(*shape)
    rng = np.random.default_rng(seed)
    values = rng.integers(0, geometry.n + 1, size=(20, geometry.n**2)) * (
        rng.random((20, geometry.n**2)) < 0.15
    )
    values = values.astype(np.int16)
    flags = _clashing(geometry, values)
    assert flags.tolist() == [given_conflict(Grid(geometry, row)) is not None for row in values]
