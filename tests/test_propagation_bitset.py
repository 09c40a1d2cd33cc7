"""The compiled queue kernel (``propagation.bitset``) reaches the numpy rounds' fixpoint, in time.

Same values, same candidates and same contradiction flag as ``propagation.vectorized`` (for a
contradictory puzzle only the flag: what is left at the stop depends on the order of work), on
random grids of every box shape, with and without locked candidates, on the sample corpora, and
through the package's dispatch, which hands unfinished puzzles from one to the other.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import DATA, SHARED, read_lines, within_limit
from hypothesis import given, settings
from hypothesis import strategies as st

import sudoku_cp.propagation as propagation
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry, geometry_for_size
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline, TimeLimitReached
from sudoku_cp.propagation import bitset, propagate_batch, vectorized
from sudoku_cp.propagation.result import Propagation
from sudoku_cp.random_grids import blank_cells, random_solution

SHAPES = [
    (1, 4), (2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (2, 5), (5, 2), (3, 3), (3, 4), (4, 3),
    (3, 5), (5, 3), (4, 4), (4, 5), (5, 4), (5, 5),
]  # fmt: skip


def _same(old: Propagation, new: Propagation) -> None:
    """Same flags; for the puzzles without contradiction, same digits and candidates."""
    assert np.array_equal(old.contradiction, new.contradiction)
    ok = ~old.contradiction
    assert np.array_equal(old.values[ok], new.values[ok])
    assert np.array_equal(old.candidates[ok], new.candidates[ok])
    assert new.values.dtype == np.int16 and new.candidates.dtype == bool
    assert new.candidates.shape == old.candidates.shape


def _old(geometry: Geometry, values: np.ndarray, locked: bool = False) -> Propagation:
    return vectorized.propagate_rounds(geometry, values, locked=locked)[0]


def _random_batch(geometry: Geometry, rng: np.random.Generator, size: int) -> np.ndarray:
    """Partial grids: solutions with cells emptied, a third with a wrong digit, a sixth pure noise."""
    n = geometry.n
    rows = []
    for k in range(size):
        values = blank_cells(random_solution(geometry, rng), rng.uniform(0.2, 0.95), rng).values.reshape(-1)
        values = values.copy()
        if k % 3 == 1:  # a wrong digit: often a contradiction, not always at once
            empty = np.flatnonzero(values == 0)
            if empty.size:
                values[rng.choice(empty)] = rng.integers(1, n + 1)
        elif k % 6 == 2:  # random givens, no solution behind them
            values[:] = 0
            cells = rng.choice(n * n, size=n * n // 4, replace=False)
            values[cells] = rng.integers(1, n + 1, size=cells.size)
        rows.append(values)
    return np.stack(rows).astype(np.int16)


@pytest.mark.parametrize("locked", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{p}x{q}" for p, q in SHAPES])
def test_same_fixpoint_as_the_numpy_rounds_on_random_grids(shape: tuple[int, int], locked: bool) -> None:
    geometry = Geometry(*shape)
    batch = _random_batch(geometry, np.random.default_rng(sum(shape) * 7 + locked), 24)
    old = _old(geometry, batch, locked)
    assert old.contradiction.any() and not old.contradiction.all()  # both kinds are covered
    _same(old, bitset.propagate_batch(geometry, batch, locked=locked))


@settings(max_examples=40)
@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.booleans())
def test_same_fixpoint_one_puzzle_at_a_time(shape: tuple[int, int], seed: int, locked: bool) -> None:
    geometry = Geometry(*shape)
    batch = _random_batch(geometry, np.random.default_rng(seed), 3)
    for values in batch:
        new = bitset.propagate_batch(geometry, values[None], locked=locked)
        _same(_old(geometry, values[None], locked), new)


def test_a_batch_is_each_puzzle_alone() -> None:
    """The work arrays are reused from puzzle to puzzle: nothing of one leaks into the next."""
    geometry = Geometry(3, 3)
    batch = _random_batch(geometry, np.random.default_rng(3), 30)
    together = bitset.propagate_batch(geometry, batch, locked=True)
    for k, values in enumerate(batch):
        alone = bitset.propagate_batch(geometry, values[None], locked=True)
        assert together.contradiction[k] == alone.contradiction[0]
        assert np.array_equal(together.values[k], alone.values[0])
        assert np.array_equal(together.candidates[k], alone.candidates[0])


def test_givens_are_kept_and_clashes_fail_at_once() -> None:
    clash = parse_grid("11" + "." * 14)
    result = bitset.propagate_batch(clash.geometry, clash.values.reshape(1, -1))
    assert result.contradiction[0]
    assert np.array_equal(result.values[0][:2], [1, 1])  # the givens stay as they were
    dead = parse_grid("123." + "...4" + "." * 8)  # R1C4 sees 1, 2, 3 and 4
    assert bitset.propagate_batch(dead.geometry, dead.values.reshape(1, -1)).contradiction[0]


def test_digits_out_of_range_are_refused_and_an_empty_batch_is_empty() -> None:
    geometry = Geometry(2, 2)
    for wrong in (5, -1):
        values = np.zeros((1, 16), np.int16)
        values[0, 3] = wrong
        with pytest.raises(bitset.BitsetInputError, match="0..4"):
            bitset.propagate_batch(geometry, values)
    empty = bitset.propagate_batch(geometry, np.zeros((0, 16), np.int16))
    assert empty.values.shape == (0, 16) and empty.candidates.shape == (0, 16, 4)
    assert empty.contradiction.shape == (0,)


@pytest.mark.parametrize(
    "name",
    ["norvig_top95.txt", "norvig_hardest.txt", "named_hard.txt", "forum_hardest_200.txt", "serg_100.txt",
     "clue17_100.txt", "magictour_100.txt", "euler96_easy10.txt"],
)  # fmt: skip
def test_same_fixpoint_on_the_9x9_samples(name: str) -> None:
    lines = read_lines(DATA / name)
    batch = np.stack([parse_grid(line.split("\t")[-1]).values.reshape(-1) for line in lines])
    geometry = geometry_for_size(9)
    for locked in (False, True):
        _same(_old(geometry, batch, locked), bitset.propagate_batch(geometry, batch, locked=locked))


@pytest.mark.parametrize(
    "name", ["inst16x16_45_0.txt", "inst25x25_45_0.txt", "sudoku-25-1.txt", "aiescargot.txt"]
)
def test_same_fixpoint_on_the_bigger_samples(name: str) -> None:
    grid = parse_grid((DATA / name).read_text())
    values = grid.values.reshape(1, -1)
    for locked in (False, True):
        new = bitset.propagate_batch(grid.geometry, values, locked=locked)
        assert not new.contradiction[0]
        _same(_old(grid.geometry, values, locked), new)


@pytest.mark.parametrize("rounds", [0, 1, 3, 10**4])
def test_the_dispatch_hands_unfinished_puzzles_over_with_the_same_result(
    rounds: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the numpy rounds may spend (no round, some, all of them), the answer is the same."""
    geometry = Geometry(2, 3)
    batch = _random_batch(geometry, np.random.default_rng(rounds), 40)
    for locked in (False, True):
        work = rounds * len(batch) * vectorized.round_cost(geometry.n, locked)
        monkeypatch.setattr(propagation, "VECTORIZED_WORK", work)
        _same(_old(geometry, batch, locked), propagate_batch(geometry, batch, locked=locked))


def test_the_numpy_rounds_stop_at_the_cap_with_sound_digits() -> None:
    geometry = geometry_for_size(9)
    puzzle = parse_grid(read_lines(DATA / "euler96_easy10.txt", 1)[0])
    values = puzzle.values.reshape(1, -1)
    full = vectorized.propagate_rounds(geometry, values)[0]
    assert (full.values > 0).all()  # an easy puzzle: singles fill it over several rounds
    part, left = vectorized.propagate_rounds(geometry, values, max_work=2 * vectorized.round_cost(9))
    assert list(left) == [0]
    placed = part.values[0] > 0
    assert puzzle.givens < placed.sum() < 81
    assert np.array_equal(part.values[0][placed], full.values[0][placed])


def test_a_9x9_puzzle_and_a_sample_batch_do_not_load_numba() -> None:
    """The dispatch keeps small work in numpy: ``sudoku-cp solve`` of a 9x9 stays light."""
    code = (
        "import json, sys\n"
        "from sudoku_cp.formats import parse_puzzles\n"
        "from sudoku_cp.propagation import propagate, propagate_batch\n"
        f"items = parse_puzzles(open({str(DATA / 'forum_hardest_200.txt')!r}).read())\n"
        "import numpy as np\n"
        "grids = [item.grid for item in items]\n"
        "propagate(grids[0], locked=True)\n"
        "propagate_batch(grids[0].geometry, np.stack([g.values.reshape(-1) for g in grids]))\n"
        "print(json.dumps('numba' in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) is False


def _big_puzzle(p: int, q: int, blank: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    geometry = Geometry(p, q)
    return blank_cells(random_solution(geometry, rng), blank, rng).values.reshape(1, -1)


class _CountingDeadline(Deadline):
    """A deadline that runs out at its ``stop``-th check."""

    def __init__(self, stop: int) -> None:
        super().__init__(None)
        self.stop = stop
        self.calls = 0

    def check(self, phase: str) -> None:
        self.calls += 1
        if self.calls >= self.stop:
            raise TimeLimitReached(phase)


def test_the_kernel_works_in_slices_and_checks_the_deadline_between_them() -> None:
    geometry = Geometry(4, 4)
    values = _big_puzzle(4, 4, 0.6, 1)
    whole = bitset.propagate_batch(geometry, values)
    counting = _CountingDeadline(10**9)
    sliced = bitset.propagate_batch(geometry, values, deadline=counting, slice_steps=64)
    _same(whole, sliced)
    assert counting.calls > 5  # once before the start, then between slices
    with pytest.raises(TimeLimitReached, match="propagation"):
        bitset.propagate_batch(geometry, values, deadline=_CountingDeadline(3), slice_steps=64)


def test_a_small_time_limit_on_400x400_is_honoured() -> None:
    geometry = Geometry(20, 20)
    values = _big_puzzle(20, 20, 0.2, 2)  # about 0.5 s of work
    for limit in (0.0, 0.05):
        began = time.monotonic()
        with pytest.raises(TimeLimitReached, match="propagation"):
            propagate_batch(geometry, values, deadline=Deadline(limit))
        assert within_limit(time.monotonic() - began, limit)
    began = time.monotonic()
    with pytest.raises(TimeLimitReached, match="propagation"):
        bitset.propagate_batch(geometry, values, deadline=Deadline(0.05))
    assert within_limit(time.monotonic() - began, 0.05)


def test_400x400_singles_keep_the_solution() -> None:
    """A 400x400 grid a fifth empty: singles place nearly every digit, all the solution's."""
    rng = np.random.default_rng(4)
    geometry = Geometry(20, 20)
    solution = random_solution(geometry, rng).values.reshape(-1)
    puzzle = blank_cells(Grid(geometry, solution), 0.2, rng).values.reshape(1, -1)
    for locked in (False, True):
        result = bitset.propagate_batch(geometry, puzzle, locked=locked)
        assert not result.contradiction[0]
        placed = result.values[0] > 0
        assert placed.sum() > (puzzle[0] > 0).sum() + 30_000
        assert np.array_equal(result.values[0][placed], solution[placed])
        assert result.candidates[0][np.arange(solution.size), solution - 1].all()


BIG = sorted((SHARED / "big").glob("sudoku-*.txt")) if (SHARED / "big").is_dir() else []


@pytest.mark.slow
@pytest.mark.parametrize("path", BIG or [None], ids=[path.name for path in BIG] or ["absent"])
def test_same_fixpoint_on_every_big_grid(path: Path | None) -> None:
    """Every file of ../shared/data/big: the kernel's answer is the numpy rules' fixpoint.

    The numpy rounds from the givens need minutes to an hour past 144x144, so the check is numpy
    from the kernel's digits: one round for singles, in which nothing may change; rounds to the
    fixpoint with locked candidates (a chain of them needs several rounds, placing nothing new).
    """
    if path is None:
        pytest.skip(f"the big grids are absent (expected in {SHARED / 'big'})")
    grid = parse_grid(path.read_text())
    values = grid.values.reshape(1, -1)
    n = grid.n
    for locked in (False, True):
        new = bitset.propagate_batch(grid.geometry, values, locked=locked)
        assert not new.contradiction[0]
        assert np.array_equal(new.values[0][values[0] > 0], values[0][values[0] > 0])
        if n <= 144:
            _same(_old(grid.geometry, values, locked), new)
        cap = None if locked else vectorized.round_cost(n)
        again, left = vectorized.propagate_rounds(grid.geometry, new.values, locked=locked, max_work=cap)
        assert left.size == 0
        _same(again, new)
