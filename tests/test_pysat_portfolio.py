"""Big grids: the python-sat portfolio (child processes, first answer wins) and its routing."""

from __future__ import annotations

import multiprocessing
import time

import numpy as np
import pytest
from conftest import shared_file, within_limit

from sudoku_cp.backends.pysat_backend import (
    BIG_SIDE,
    PysatBackend,
    _numbering,
    _renumber,
    solver_options,
)
from sudoku_cp.backends.pysat_batch import PysatBatchBackend
from sudoku_cp.checker import valid_solutions_mask
from sudoku_cp.cnf.sudoku import encode_cnf
from sudoku_cp.formats import parse_grid
from sudoku_cp.geometry import Geometry
from sudoku_cp.grid import Grid
from sudoku_cp.limits import Deadline
from sudoku_cp.outcome import REASON_TIME_LIMIT
from sudoku_cp.random_grids import random_puzzle


def _grid(fraction: float, seed: int) -> Grid:
    return random_puzzle(Geometry(5, 5), fraction, np.random.default_rng(seed))


def test_big_grids_get_the_big_options_and_small_ones_none() -> None:
    assert BIG_SIDE <= 25
    assert solver_options("cadical195", 25) == {"stabilizeonly": 1}
    assert solver_options("cadical195", 25, 1) == {"stabilizeonly": 1, "phase": 0}
    assert solver_options("cadical195", 25, 2) == solver_options("cadical195", 25, 0)
    assert solver_options("cadical195", 16) == {}
    assert solver_options("glucose4", 64) == {}


def test_a_renumbering_is_undone_exactly() -> None:
    cnf = encode_cnf(_grid(0.6, 1), "optimized")
    mapping = _numbering(cnf, 3)
    assert mapping is not None and _numbering(cnf, 0) is None
    back = np.empty_like(mapping)
    back[mapping] = np.arange(mapping.size)
    for block in cnf.blocks():
        assert np.array_equal(_renumber(_renumber(block, mapping), back), block)
    assert sorted(mapping[1:].tolist()) == list(range(1, cnf.n_vars + 1))


@pytest.mark.parametrize("workers", [1, 2])
def test_the_portfolio_counts_as_one_solver_does(workers: int) -> None:
    puzzle = _grid(0.75, 5)  # few givens: several solutions
    single = PysatBackend(workers=1).search(puzzle, limit=3)
    found = PysatBackend(workers=workers).search(puzzle, limit=3)
    assert single.count == found.count == 3 and not found.complete and found.reason is None
    assert valid_solutions_mask(puzzle, found.solutions).all()
    if workers == 2:
        assert found.stats["portfolio"] == 2


def test_the_portfolio_proves_a_unique_solution_complete() -> None:
    puzzle = _grid(0.4, 7)
    found = PysatBackend(workers=2).search(puzzle, limit=2)
    assert found.count >= 1 and (found.complete or found.count == 2)


def test_the_portfolio_stops_its_workers_at_the_deadline() -> None:
    puzzle = parse_grid(shared_file("big/sudoku-64-1.txt").read_text())
    backend = PysatBackend(workers=2)
    backend.search(_grid(0.5, 2), limit=1)  # first calls out of the way
    began = time.monotonic()
    found = backend.search(puzzle, limit=1, time_limit=1.0)
    elapsed = time.monotonic() - began
    if found.count == 0:
        assert found.reason == REASON_TIME_LIMIT and not found.complete
    assert within_limit(elapsed, 1.0), elapsed
    assert not multiprocessing.active_children()


def test_big_grids_of_a_batch_go_their_own_way_in_order() -> None:
    small = random_puzzle(Geometry(3, 3), 0.5, np.random.default_rng(0))
    big = _grid(0.5, 9)
    answers = PysatBatchBackend().search_many([small, big, small], 1, Deadline(60))
    assert [answer.solutions.shape[1] for answer in answers] == [9, 25, 9]
    assert all(answer.count == 1 and answer.seconds is not None for answer in answers)
    # The big grid alone went to the single-puzzle solver on its CNF (whose size its stats give).
    assert ["clauses" in answer.stats for answer in answers] == [False, True, False]


def _size_in_child(_: int) -> int:
    from sudoku_cp.backends.pysat_backend import _portfolio_size

    return _portfolio_size(None)


def test_a_worker_process_of_a_batch_starts_no_portfolio() -> None:
    from concurrent.futures import ProcessPoolExecutor

    from sudoku_cp.backends.pysat_backend import _portfolio_size

    assert _portfolio_size(3) == 3 and _portfolio_size(None) >= 1
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        assert list(pool.map(_size_in_child, [0])) == [1]
