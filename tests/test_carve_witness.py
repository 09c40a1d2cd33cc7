"""The witness search of the carving by count (``native.witness.witness_batch``): for each given of a puzzle
with one solution, a second solution of the puzzle without it (the given stays), or none (it can
go), as a count to two by the backtrack search decides, and never "none" for a search cut short."""

from __future__ import annotations

import numpy as np
import pytest

from sudoku_cp.geometry import Geometry
from sudoku_cp.limits import Deadline
from sudoku_cp.native import witness as witness_module
from sudoku_cp.native.backtrack import search_batch
from sudoku_cp.native.carve import carve, check_witnesses, rng_states
from sudoku_cp.native.chunks import ChunkBudget
from sudoku_cp.native.witness import witness_batch

pytestmark = pytest.mark.timeout(300)


def _tests(
    geometry: Geometry, seed: int, symmetric: bool, final: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A carved puzzle's seeded givens (``final``: its givens) as tests: (rows without each,
    tested cells, partners, solution)."""
    carved = carve(geometry, rng_states(seed, np.arange(1)), symmetric=symmetric)
    assert carved.done.all()
    cells = geometry.cells
    solution = carved.solutions[0]
    firsts = carved.order[0, : carved.seeded[0]].astype(np.int64)
    if final:  # every test keeps its given: a witness each, some of them deep
        firsts = firsts[carved.puzzles[0][firsts] != 0]
    # The puzzle holds every seeded given again: those the carving took out go too with one test each.
    puzzle = np.zeros(cells, np.int8)
    for first in firsts:
        puzzle[first] = solution[first]
        if symmetric:
            puzzle[cells - 1 - first] = solution[cells - 1 - first]
    rows = np.repeat(puzzle[None, :], firsts.size, axis=0)
    at = np.arange(firsts.size)
    rows[at, firsts] = 0
    partner = np.full(firsts.size, -1, np.int64)
    if symmetric:
        rows[at, cells - 1 - firsts] = 0
        partner = np.where(cells - 1 - firsts != firsts, cells - 1 - firsts, -1)
    return rows, firsts, partner, solution


def _valid(geometry: Geometry, grid: np.ndarray) -> bool:
    units = np.sort(grid.astype(np.int64)[np.asarray(geometry.units)], axis=1)
    return bool(np.array_equal(units, np.broadcast_to(np.arange(1, geometry.n + 1), units.shape)))


@pytest.mark.parametrize("box", [(3, 3), (3, 4), (4, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("symmetric", [False, True], ids=["minimal", "symmetric"])
def test_a_witness_exists_exactly_when_the_count_finds_two(box: tuple[int, int], symmetric: bool) -> None:
    geometry = Geometry(*box)
    seen = {0: 0, 1: 0}
    for seed in range(3):
        rows, firsts, partner, solution = _tests(geometry, seed, symmetric)
        found, grids, nodes = witness_batch(geometry, rows, firsts, partner, solution)
        run = search_batch(geometry, rows, limit=2, keep=False)
        assert (run.complete | (run.counts >= 2)).all()
        assert np.array_equal(found == 1, run.counts >= 2)
        assert np.array_equal(found == 0, run.counts == 1)
        assert (nodes > 0).all()
        for t in np.flatnonzero(found == 1):
            grid = grids[t]
            kept = rows[t] != 0
            assert _valid(geometry, grid)
            assert np.array_equal(grid[kept], rows[t][kept])
            changed = grid[firsts[t]] != solution[firsts[t]]
            if partner[t] >= 0:
                changed |= grid[partner[t]] != solution[partner[t]]
            assert changed
        seen[0] += int(np.count_nonzero(found == 0))
        seen[1] += int(np.count_nonzero(found == 1))
    assert seen[0] > 0 and seen[1] > 0  # both answers were asked for


def test_a_search_cut_short_says_nothing() -> None:
    """Out of budget: the tests not finished stay unsettled (-1), never "no witness"."""
    geometry = Geometry(4, 4)
    rows, firsts, partner, solution = _tests(geometry, 1, False)
    tables = witness_module._witness_tables(geometry)
    work = witness_module._witness_work(geometry, geometry.cells + 1)
    found = np.full(rows.shape[0], -1, np.int8)
    grids = np.zeros(rows.shape, np.int8)
    nodes = np.zeros(rows.shape[0], np.int64)
    no_roots = np.empty((0, geometry.cells), np.uint64), np.empty(0, np.int8)
    status = witness_module._witness_batch(
        rows, firsts, partner, solution, tables, work, grids, found, nodes, 3, *no_roots
    )  # fmt: skip
    assert status == witness_module.BUDGET
    assert int(nodes.sum()) == 3
    reached = int(work.state[0])
    assert (found[reached:] == -1).all()
    # Resumed, the same answers as in one go.
    while status != 0:
        status = witness_module._witness_batch(
            rows, firsts, partner, solution, tables, work, grids, found, nodes, 3, *no_roots
        )  # fmt: skip
    whole, _, _ = witness_batch(geometry, rows, firsts, partner, solution)
    assert np.array_equal(found, whole)


def test_a_test_out_of_time_is_left_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test past its seconds is given up (-1) and the next one goes on."""
    geometry = Geometry(4, 4)
    rows, firsts, partner, solution = _tests(geometry, 2, False, final=True)
    whole, _, nodes = witness_batch(geometry, rows, firsts, partner, solution)

    def small_chunks(deadline: Deadline, *args: object) -> ChunkBudget:
        return ChunkBudget(deadline, 3, 3, 3)  # three nodes a chunk

    clock = iter(np.arange(0.0, 1e6, 10.0))  # every chunk takes ten seconds
    monkeypatch.setattr(witness_module, "ChunkBudget", small_chunks)
    monkeypatch.setattr(witness_module.time, "monotonic", lambda: float(next(clock)))
    found, _, _ = witness_batch(geometry, rows, firsts, partner, solution, seconds=1.0)
    settled = found >= 0
    assert np.array_equal(found[settled], whole[settled])
    # A test is checked at the end of the chunk after the one it began in: cut when it needs more
    # than two chunks, never when it fits one.
    assert (~settled[nodes > 6]).all() and settled[nodes <= 3].all()
    assert (nodes > 6).any()


@pytest.mark.parametrize("box", [(3, 3), (4, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
@pytest.mark.parametrize("symmetric", [False, True], ids=["minimal", "symmetric"])
def test_roots_made_beforehand_are_the_roots_made_one_by_one(
    box: tuple[int, int], symmetric: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``_w_roots`` (blocks of tests sharing their common givens' propagation) starts each test
    where its own propagation would: the same answers, witnesses and nodes, test by test."""
    geometry = Geometry(*box)
    for seed in range(2):
        rows, firsts, partner, solution = _tests(geometry, seed, symmetric)
        assert rows.shape[0] >= witness_module._W_ROOTS_FROM
        rooted = witness_batch(geometry, rows, firsts, partner, solution)
        with monkeypatch.context() as patch:
            patch.setattr(witness_module, "_W_ROOTS_FROM", rows.shape[0] + 1)
            alone = witness_batch(geometry, rows, firsts, partner, solution)
        for one, other in zip(rooted, alone, strict=True):
            assert np.array_equal(one, other)


def test_above_its_side_it_refuses() -> None:
    geometry = Geometry(5, 5)
    with pytest.raises(ValueError):
        witness_batch(geometry, np.zeros((1, 625), np.int8), np.zeros(1), np.full(1, -1), np.ones(625))


@pytest.mark.parametrize("box", [(2, 3), (4, 4)], ids=lambda b: f"{b[0]}x{b[1]}")
def test_check_witnesses_catches_a_digit_twice_in_a_unit(box: tuple[int, int]) -> None:
    """A witness with one cell changed to its row neighbour's digit (a row with a digit twice and
    one missing) is refused; the witnesses as found pass."""
    geometry = Geometry(*box)
    carved = carve(geometry, rng_states(1, np.arange(1)))
    puzzle, witness = carved.puzzles[0], carved.witness[0]
    assert check_witnesses(geometry, puzzle, witness) is None
    for given in np.flatnonzero(puzzle)[:5]:
        broken = witness.copy()
        free = int(np.flatnonzero(puzzle == 0)[0])  # an empty cell: no given to break there
        neighbour = free + 1 if free % geometry.n < geometry.n - 1 else free - 1
        broken[given, free] = broken[given, neighbour]
        assert check_witnesses(geometry, puzzle, broken) == "a witness breaks a row, column or box"
