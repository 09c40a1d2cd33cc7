"""The 9x9 SAT batch path: puzzles encoded and solved a slice at a time, time limits between slices."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA, read_lines

from sudoku_cp.backends import pysat_batch
from sudoku_cp.backends.pysat_batch import BatchPysat
from sudoku_cp.checker import valid_completions
from sudoku_cp.formats import parse_puzzles
from sudoku_cp.geometry import geometry_for_size
from sudoku_cp.limits import TimeLimitReached

NINE = geometry_for_size(9)


def _stack(name: str, count: int) -> np.ndarray:
    items = parse_puzzles("\n".join(read_lines(DATA / name, count)))
    return np.stack([item.grid.values.reshape(-1) for item in items if item.grid is not None])


@pytest.mark.parametrize("step", [1, 7, 4096])
def test_every_slice_size_gives_the_checked_solutions(monkeypatch: pytest.MonkeyPatch, step: int) -> None:
    monkeypatch.setattr(pysat_batch, "_ENCODING_STEP", step)
    givens = np.concatenate([_stack("forum_hardest_200.txt", 20), _stack("clue17_100.txt", 20)])
    answers = BatchPysat().search_arrays(NINE, givens, limit=2)
    assert answers.counts.tolist() == [1] * len(givens)
    assert answers.complete.all()
    assert valid_completions(NINE, givens, answers.solutions).all()


def test_a_time_limit_during_a_later_slice_leaves_the_rest_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pysat_batch, "_ENCODING_STEP", 2)
    real = pysat_batch._compact_batch
    calls = []

    def second_runs_out(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise TimeLimitReached("encoding")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pysat_batch, "_compact_batch", second_runs_out)
    givens = _stack("forum_hardest_200.txt", 5)  # all left open by propagation
    answers = BatchPysat().search_arrays(NINE, givens)
    assert answers.counts.tolist() == [1, 1, 0, 0, 0]
    assert answers.complete.tolist() == [False] * 5  # limit 1: one solution found, not proved unique
    stopped = "time limit reached during encoding"
    assert [answers.reasons.get(b) for b in range(5)] == [None, None] + [stopped] * 3
    assert valid_completions(NINE, givens[:2], answers.solutions[:2]).all()
