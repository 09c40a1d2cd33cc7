"""Backtracking search on bitset propagation, with the minimum-remaining-values heuristic.

This is the "BS" solver of Lloyd & Amos' ant colony paper (§4): the same propagation as the ant
colony (``sudoku_cp.native.propagation``), searched depth first.  At each node it branches on the
open cell with the fewest candidates (the first such cell in row-major order), tries its values
in increasing order, and propagates every choice to a fixed point; a contradiction ends the
branch.  It counts solutions up to a limit, so it is complete: when it finishes below the limit
the count is exact and zero means no solution.

The search is iterative with its whole state in numpy arrays (one candidate array per depth),
so it runs in chunks of a node budget and the Python driver checks the wall clock in between,
like ``sudoku_cp.native.dlx``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np

from ..grid import Grid
from .chunks import ChunkBudget
from .propagation import fix_and_propagate, initial_masks, propagate_masks, propagation_tables

__all__ = ["BacktrackResult", "backtrack_search"]

# Indices into the state vector.
_LEVEL, _MODE, _COUNT, _NODES, _NBUF = range(5)
# Modes of the search loop.
_ENTER, _TRY, _BACKTRACK = 0, 1, 2
# Statuses returned by the kernel.
_DONE, _LIMIT, _BUDGET, _FLUSH = 0, 1, 2, 3

_BUFFER_SOLUTIONS = 64
_MIN_BUDGET, _MAX_BUDGET = 100, 20_000_000
_CHUNK_SECONDS = 0.02
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@dataclass(frozen=True, slots=True)
class BacktrackResult:
    """Outcome of a backtracking search.

    ``solutions``: (k, n, n) int16 grids found (empty when ``keep=False``); ``count``: solutions
    found; ``complete``: the search space was exhausted, so ``count`` is exact; ``timed_out``:
    stopped by the time limit; ``nodes``: propagation calls made (one per value tried).
    """

    solutions: np.ndarray
    count: int
    complete: bool
    timed_out: bool
    nodes: int


@numba.njit(cache=True)
def _search(
    levels: np.ndarray,
    branch_cell: np.ndarray,
    todo: np.ndarray,
    state: np.ndarray,
    stack: np.ndarray,
    unit_dirty: np.ndarray,
    unit_stack: np.ndarray,
    peers: np.ndarray,
    units: np.ndarray,
    cell_units: np.ndarray,
    full: np.uint64,
    limit: int,
    budget: int,
    keep: bool,
    out: np.ndarray,
) -> int:  # pragma: no cover - compiled
    """Run the depth-first search from ``state`` for at most ``budget`` nodes; return a status."""
    cells = levels.shape[1]
    level = state[_LEVEL]
    mode = state[_MODE]
    spent = 0
    while True:
        if mode == _ENTER:
            masks = levels[level]
            best = -1
            best_size = 65
            for cell in range(cells):
                m = masks[cell]
                if (m & (m - _ONE)) != _ZERO:
                    size = 0
                    while m != _ZERO:
                        m &= m - _ONE
                        size += 1
                    if size < best_size:
                        best = cell
                        best_size = size
                        if size == 2:
                            break
            if best < 0:
                if keep:
                    nbuf = state[_NBUF]
                    if nbuf == out.shape[0]:
                        state[_LEVEL] = level
                        state[_MODE] = mode
                        state[_NODES] += spent
                        return _FLUSH
                    for cell in range(cells):
                        m = masks[cell]
                        digit = 0
                        while m > _ONE:
                            m >>= _ONE
                            digit += 1
                        out[nbuf, cell] = digit + 1
                    state[_NBUF] = nbuf + 1
                state[_COUNT] += 1
                mode = _BACKTRACK
                if state[_COUNT] >= limit:
                    state[_LEVEL] = level
                    state[_MODE] = mode
                    state[_NODES] += spent
                    return _LIMIT
                continue
            branch_cell[level] = best
            todo[level] = masks[best]
            mode = _TRY
        elif mode == _TRY:
            rest = todo[level]
            if rest == _ZERO:
                mode = _BACKTRACK
                continue
            if spent >= budget:
                state[_LEVEL] = level
                state[_MODE] = mode
                state[_NODES] += spent
                return _BUDGET
            spent += 1
            bit = rest & (~rest + _ONE)
            todo[level] = rest & ~bit
            child = levels[level + 1]
            child[:] = levels[level]
            if fix_and_propagate(
                child,
                branch_cell[level],
                bit,
                stack,
                unit_dirty,
                unit_stack,
                peers,
                units,
                cell_units,
                full,
                True,
            ):
                level += 1
                mode = _ENTER
        else:  # _BACKTRACK
            if level == 0:
                state[_LEVEL] = level
                state[_MODE] = mode
                state[_NODES] += spent
                return _DONE
            level -= 1
            mode = _TRY


def backtrack_search(
    puzzle: Grid, *, limit: int = 1, time_limit: float | None = None, keep: bool = True
) -> BacktrackResult:
    """Find up to ``limit`` solutions of ``puzzle`` by propagation and MRV backtracking.

    ``time_limit`` is wall-clock seconds from the call (a first-call compile included), checked
    between chunks of nodes; with ``keep=False`` solutions are only counted.
    """
    if limit < 1:
        raise ValueError("limit must be at least 1")
    began = time.perf_counter()
    n = puzzle.n
    tables = propagation_tables(puzzle.geometry)
    root = initial_masks(puzzle)
    empty = np.zeros((0, n, n), np.int16)
    if not propagate_masks(root, tables.peers, tables.units, tables.cell_units, tables.full, True):
        return BacktrackResult(empty, 0, True, False, 1)
    open_cells = int(np.count_nonzero(root & (root - np.uint64(1))))
    cells = n * n
    levels = np.empty((open_cells + 1, cells), np.uint64)
    levels[0] = root
    branch_cell = np.zeros(open_cells + 1, np.int64)
    todo = np.zeros(open_cells + 1, np.uint64)
    state = np.zeros(5, np.int64)
    stack = np.empty(cells, np.int64)
    unit_dirty = np.zeros(3 * n, np.bool_)
    unit_stack = np.empty(3 * n, np.int64)
    out = np.zeros((_BUFFER_SOLUTIONS if keep else 1, cells), np.int16)
    limit = min(int(limit), int(np.iinfo(np.int64).max))
    found: list[np.ndarray] = []
    clock = ChunkBudget(time_limit, 1_000, _MIN_BUDGET, _MAX_BUDGET, _CHUNK_SECONDS, began)
    timed_out = False
    while True:
        budget = clock.start()
        status = _search(
            levels,
            branch_cell,
            todo,
            state,
            stack,
            unit_dirty,
            unit_stack,
            tables.peers,
            tables.units,
            tables.cell_units,
            tables.full,
            limit,
            budget,
            keep,
            out,
        )
        if keep and state[_NBUF]:
            found.append(out[: state[_NBUF]].copy())
            state[_NBUF] = 0
        if status in (_DONE, _LIMIT):
            break
        if clock.out_of_time(resize=status == _BUDGET):
            timed_out = True
            break
    solutions = np.concatenate(found).reshape(-1, n, n) if found else empty
    return BacktrackResult(solutions, int(state[_COUNT]), status == _DONE, timed_out, int(state[_NODES]))
