"""The warm-up of a parallel batch (puzzles done here before the workers fork): its budget is CPU."""

from __future__ import annotations

import itertools
import time

import pytest

from sudoku_cp.deduction import batch
from sudoku_cp.executor import Executor
from sudoku_cp.formats import parse_puzzles

EASY = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"  # 2.6
CHAINS = "..3.1.8..5.......3..736.5.46.5.2..........9.5.7...83...5......6.8.4.........792.."  # 8.3


def test_a_busy_wall_clock_does_not_end_the_warm_up_before_the_kernels_are_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # On a busy machine the wall clock runs far ahead of the CPU time this process gets: here it
    # gains an hour on every look.  The warm-up still goes on, puzzle after puzzle, up to the
    # first that needs more than Nishio (the chains), as on an idle machine.
    items = parse_puzzles("\n".join([EASY] * 5 + [CHAINS] + [EASY] * 3))
    here: list[int] = []
    run_chunk = batch._run_chunk

    def counted(chunk: batch._Chunk) -> list[batch.Rated | batch.Explained]:
        here.append(len(chunk.items))
        return run_chunk(chunk)

    monkeypatch.setattr(batch, "_run_chunk", counted)
    clock = itertools.count(0.0, 3600.0)
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
    results = batch.rate_items(items, executor=Executor(jobs=2))
    try:
        # The warm-up's results come before any worker starts (the pool starts when the results
        # after them are read), so reading six starts none.
        first = [next(results) for _ in range(6)]
    finally:
        results.close()
    assert [result.rating for result in first] == [2.6] * 5 + [8.3]
    assert here == [1] * 6
