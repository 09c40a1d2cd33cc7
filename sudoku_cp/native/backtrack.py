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

from dataclasses import dataclass
from functools import partial

import numba
import numpy as np

from ..grid import Grid
from ..limits import Deadline
from . import NativeInputError
from .chunks import BUDGET, FLUSH, ChunkBudget
from .propagation import PropagationTables, Scratch, fix, new_scratch, propagate_grid, propagation_tables

__all__ = ["BacktrackResult", "backtrack_search"]

# Indices into the state vector.
_LEVEL, _MODE, _COUNT, _NODES, _NBUF = range(5)
# Modes of the search loop.
_ENTER, _TRY, _BACKTRACK = 0, 1, 2
# Final statuses of the kernel (it also returns chunks.BUDGET and chunks.FLUSH).
_DONE, _LIMIT = 0, 1

# The output buffer holds this many cells (int16) of solutions between two flushes.
_BUFFER_CELLS = 1 << 20
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
    work: Scratch,
    tables: PropagationTables,
    limit: int,
    keep: bool,
    out: np.ndarray,
    budget: int,
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
                        return FLUSH
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
                return BUDGET
            spent += 1
            bit = rest & (~rest + _ONE)
            todo[level] = rest & ~bit
            child = levels[level + 1]
            child[:] = levels[level]
            if fix(child, branch_cell[level], bit, work, tables, True):
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
        raise NativeInputError("limit must be at least 1")
    deadline = Deadline(time_limit)
    n = puzzle.n
    empty = np.zeros((0, n, n), np.int16)
    start = propagate_grid(puzzle)
    if start.contradiction:
        return BacktrackResult(empty, 0, True, False, 1)
    root = start.masks
    open_cells = int(np.count_nonzero(root & (root - np.uint64(1))))
    cells = n * n
    levels = np.empty((open_cells + 1, cells), np.uint64)
    levels[0] = root
    branch_cell = np.zeros(open_cells + 1, np.int64)
    todo = np.zeros(open_cells + 1, np.uint64)
    state = np.zeros(5, np.int64)
    limit = min(int(limit), int(np.iinfo(np.int64).max))
    out = np.zeros((max(1, min(limit, _BUFFER_CELLS // cells)) if keep else 1, cells), np.int16)
    found: list[np.ndarray] = []

    def drain() -> None:
        if state[_NBUF]:
            found.append(out[: state[_NBUF]].copy())
            state[_NBUF] = 0

    tables = propagation_tables(puzzle.geometry)
    step = partial(_search, levels, branch_cell, todo, state, new_scratch(n), tables, limit, keep, out)
    clock = ChunkBudget(deadline, 1_000, _MIN_BUDGET, _MAX_BUDGET, _CHUNK_SECONDS)
    status, timed_out = clock.run(step, drain if keep else None)
    solutions = np.concatenate(found).reshape(-1, n, n) if found else empty
    return BacktrackResult(solutions, int(state[_COUNT]), status == _DONE, timed_out, int(state[_NODES]))
