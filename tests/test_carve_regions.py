"""Region witnesses of the carving by count (``carve.region_rows``, from ``REGION_SIDE`` on): a given's
band and stack searched with every other cell held at the known solution; any other solution is a
witness, and the carving makes the same puzzles with them as without them."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.api import count_solutions
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.native import backtrack
from sudoku_cp.native import carve as carve_module
from sudoku_cp.native.carve import carve, check_witnesses, region_rows, rng_states

pytestmark = pytest.mark.timeout(300)


def _carved(geometry: Geometry, seed: int, count: int, symmetric: bool = False) -> carve_module.Carved:
    carved = carve(geometry, rng_states(seed, np.arange(count)), symmetric=symmetric, by_count=True)
    assert carved.done.all()
    return carved


def _recorded_limits(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The time limit of every count from now on, in order (the counts still run): the backtrack
    search's (regions, and counts above ``WITNESS_MAX_SIDE``) and the witness search's (its
    seconds a test, else its deadline)."""
    limits: list[object] = []
    search = backtrack.search_batch
    witnesses = carve_module.witness_batch

    def recording(*args: object, **kwargs: object) -> backtrack.BatchRun:
        limits.append(kwargs.get("time_limit"))
        return search(*args, **kwargs)  # type: ignore[arg-type]

    def recording_witnesses(*args: object, **kwargs: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        seconds = kwargs.get("seconds")
        limits.append(seconds if seconds is not None else kwargs.get("deadline"))
        return witnesses(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(backtrack, "search_batch", recording)
    monkeypatch.setattr(carve_module, "witness_batch", recording_witnesses)
    return limits


def _no_oracle(givens: np.ndarray, cell: int, digit: int) -> np.ndarray | bool | None:
    raise AssertionError("9x9 counts finish within the test time")


@pytest.mark.parametrize("box", [(3, 3), (2, 4), (3, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
def test_a_region_row_holds_the_solution_outside_its_givens_band_and_stack(box: tuple[int, int]) -> None:
    geometry = Geometry(*box)
    n, p, q = geometry.n, geometry.p, geometry.q
    carved = _carved(geometry, 3, 1)
    puzzle, solution = carved.puzzles[0], carved.solutions[0]
    firsts = np.flatnonzero(puzzle)
    for shift in range(max(n // p, n // q)):
        rows = region_rows(geometry, puzzle, solution, firsts, shift, False)
        for row, first in zip(rows, firsts, strict=True):
            r, c = divmod(int(first), n)
            assert row[first] == 0
            for cell in range(n * n):
                rr, cc = divmod(cell, n)
                bands = {r // p, (r // p + shift) % (n // p)}
                stacks = {c // q, (c // q + shift) % (n // q)}
                inside = rr // p in bands or cc // q in stacks
                if cell == first:
                    continue
                assert row[cell] == (puzzle[cell] if inside else solution[cell]), (shift, first, cell)


@pytest.mark.parametrize("symmetric", [False, True], ids=["minimal", "symmetric"])
def test_every_other_solution_of_a_region_row_is_a_witness(symmetric: bool) -> None:
    """Counted apart (Algorithm X): a region row with two solutions gives a grid that keeps every
    other given and changes the one left out; and the rows hold enough cells to be cheap."""
    geometry = Geometry(3, 3)
    n, cells = geometry.n, geometry.cells
    carved = _carved(geometry, 11, 3, symmetric)
    witnessed = 0
    for b in range(3):
        puzzle, solution = carved.puzzles[b], carved.solutions[b]
        firsts = np.flatnonzero(puzzle)
        if symmetric:
            firsts = firsts[firsts <= cells - 1 - firsts]
        for shift in range(3):
            rows = region_rows(geometry, puzzle, solution, firsts, shift, symmetric)
            run = backtrack.search_batch(geometry, rows, limit=2, keep=True)
            assert (run.complete | (run.counts == 2)).all()
            for owner, grid in zip(run.owner, run.solutions, strict=True):
                if np.array_equal(grid, solution):
                    continue
                first = int(firsts[owner])
                assert count_solutions(Grid(geometry, rows[owner].reshape(n, n)), "dlx", limit=2).count == 2
                grids = np.zeros((cells, cells), np.int8)
                grids[first] = grid
                alone = np.zeros(cells, np.int8)
                alone[first] = puzzle[first]
                if symmetric:
                    alone[cells - 1 - first] = puzzle[cells - 1 - first]
                # The witness of this given alone, checked against the whole puzzle's givens.
                keep = puzzle.copy()
                keep[first] = 0
                if symmetric:
                    keep[cells - 1 - first] = 0
                assert np.array_equal(grid[keep != 0], puzzle[keep != 0])
                assert check_witnesses(geometry, alone, grids, symmetric=symmetric) is None
                witnessed += 1
    assert witnessed > 0


@pytest.mark.parametrize("box", [(3, 3), (2, 4), (4, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("symmetric", [False, True], ids=["minimal", "symmetric"])
def test_region_witnesses_change_nothing_but_the_witnesses(
    box: tuple[int, int], symmetric: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regions on (here from 9x9) or off, the same puzzles (a given goes exactly when no other
    solution exists), each kept given with a witness that checks, and regions were searched."""
    geometry = Geometry(*box)
    count = 2 if geometry.n == 16 else 4
    off = _carved(geometry, 5, count, symmetric)
    calls: list[int] = []
    rows = carve_module.region_rows

    def counting(*args: object) -> np.ndarray:
        made = rows(*args)  # type: ignore[arg-type]
        calls.append(made.shape[0])
        return made

    monkeypatch.setattr(carve_module, "REGION_SIDE", 1)
    monkeypatch.setattr(carve_module, "region_rows", counting)
    on = _carved(geometry, 5, count, symmetric)
    assert calls, "no region was searched"
    assert np.array_equal(on.puzzles, off.puzzles)
    for b in range(count):
        assert check_witnesses(geometry, on.puzzles[b], on.witness[b], symmetric=symmetric) is None


def test_a_count_under_a_deadline_gets_the_test_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """With an oracle to take over, one hard count must not hold the whole batch until the deadline."""
    limits = _recorded_limits(monkeypatch)
    geometry = Geometry(3, 3)

    states = rng_states(2, np.arange(2))
    carved = carve(
        geometry, states, by_count=True, oracle=_no_oracle, deadline=Deadline(120), test_seconds=0.5
    )
    assert carved.done.all()
    assert limits
    assert all(isinstance(limit, float) and 0 < limit <= 0.5 for limit in limits), limits


def test_from_the_region_side_on_a_given_counted_again_gets_the_recount_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first round's counts get the test time, later ones (which on 25x25 all went to SAT)
    ``RECOUNT_SECONDS``, regions ``REGION_SECONDS``; the puzzles stay the same."""
    geometry = Geometry(3, 3)
    before = _carved(geometry, 4, 8)
    limits = _recorded_limits(monkeypatch)
    monkeypatch.setattr(carve_module, "REGION_SIDE", 1)

    after = carve(geometry, rng_states(4, np.arange(8)), by_count=True, oracle=_no_oracle, test_seconds=0.5)
    assert np.array_equal(after.puzzles, before.puzzles)
    assert set(limits) == {carve_module.REGION_SECONDS, carve_module.RECOUNT_SECONDS, 0.5}, limits
