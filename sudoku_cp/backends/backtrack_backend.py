"""The backtracking backend: the bitset search of ``native.bitset``, one puzzle or a whole batch per call.

A batch (``search_arrays``, or ``search_many`` by geometry) is searched by one compiled kernel
walk (``native.backtrack.search_batch``); every solution of the batch then passes the checker in
one vectorised pass before any answer is made.
"""

from __future__ import annotations

import time

import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline
from ..native import NativeInputError
from ..native.backtrack import BatchRun, search_batch
from ..outcome import REASON_TIME_LIMIT
from ..verify import valid_solutions_mask
from .answers import BatchAnswers, SearchManyByArrays
from .base import BackendError, checked_solutions
from .native_base import NativeBackend, NativeRun

__all__ = ["BacktrackBackend"]


class BacktrackBackend(SearchManyByArrays, NativeBackend):
    """Complete bitset search (singles, locked candidates, scored guesses); counts without storing.

    It answers a batch in one compiled call per geometry (``search_arrays``, ``search_many``) and
    remembers the pace of its last run on each geometry to size its first chunk of work.
    """

    name = "backtrack"
    batch_name = "backtrack"

    def __init__(self) -> None:
        self._budget: dict[Geometry, int] = {}

    def _search(
        self,
        geometry: Geometry,
        givens: np.ndarray,
        limit: int,
        keep: bool,
        time_limit: float | Deadline | None,
    ) -> BatchRun:
        run = search_batch(
            geometry, givens, limit=limit, keep=keep, time_limit=time_limit, budget=self._budget.get(geometry)
        )
        self._budget[geometry] = run.budget
        return run

    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Find up to ``limit`` solutions of one puzzle."""
        run = self._search(puzzle.geometry, puzzle.values.reshape(1, -1), limit, keep, Deadline(time_limit))
        return NativeRun(
            run.solutions.reshape(-1, puzzle.n, puzzle.n),
            int(run.counts[0]),
            bool(run.complete[0]),
            bool(run.timed_out[0]),
            {"nodes": int(run.nodes[0])},
        )

    def search_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
    ) -> BatchAnswers:
        """Up to ``limit`` checked solutions of each row of a (B, n*n) stack of puzzles, in one kernel walk.

        ``time_limit`` in seconds applies to each puzzle, a ``Deadline`` is one budget for the
        whole call.  Clashing givens make a puzzle unsatisfiable (complete, no solution); a grid
        beyond 64x64 is every puzzle's failure; a puzzle whose solution fails the checker gets no
        solution, not complete, the checker's verdict as its reason.  Each answer's ``seconds`` is
        its share of the search (in proportion to its nodes) and of the batch's checking.
        """
        began = time.perf_counter()
        size = geometry.n**2
        givens = np.asarray(values, dtype=np.int16).reshape(-1, size)
        batch = len(givens)
        try:
            run = self._search(geometry, givens, limit, True, time_limit)
        except NativeInputError as error:
            failure = f"{self.name}: {error}"
            seconds = np.full(batch, (time.perf_counter() - began) / max(batch, 1))
            nothing = np.zeros(batch, dtype=np.int64)
            return BatchAnswers(
                geometry, np.zeros((batch, size), np.int16), nothing, nothing.astype(bool), seconds,
                dict.fromkeys(range(batch), failure),
            )  # fmt: skip
        stack, owner = run.solutions, run.owner
        # The checker, over the whole batch at once: complete valid grids that keep their givens.
        ok = valid_solutions_mask(Grid.empty(geometry), stack)
        ok &= ((stack == givens[owner]) | (givens[owner] == 0)).all(axis=1)
        counts, complete = run.counts.copy(), run.complete.copy()
        ends = np.cumsum(counts)
        starts = ends - counts
        solutions = np.zeros((batch, size), np.int16)
        found = counts > 0
        solutions[found] = stack[starts[found]]
        reasons = dict.fromkeys(np.flatnonzero(run.timed_out).tolist(), REASON_TIME_LIMIT)
        more = {k: stack[starts[k] + 1 : ends[k]] for k in np.flatnonzero(counts > 1).tolist()}
        refused = set(owner[~ok].tolist()) | {
            k for k, rest in more.items() if _repeats(stack[starts[k] : ends[k]])
        }
        for k in sorted(refused):
            try:  # the independent checker's verdict, in words
                checked_solutions(Grid(geometry, givens[k]), stack[starts[k] : ends[k]], self.name)
            except BackendError as error:
                reasons[k] = str(error)
            counts[k], complete[k] = 0, False
            solutions[k] = 0
            more.pop(k, None)
        overhead = (time.perf_counter() - began - float(run.seconds.sum())) / max(batch, 1)
        return BatchAnswers(geometry, solutions, counts, complete, run.seconds + overhead, reasons, more)


def _repeats(grids: np.ndarray) -> bool:
    """Whether a (k, n, n) stack holds the same grid twice.

    Rows are hashed to one integer each and only rows with equal hashes are compared: sorting
    whole rows (``np.unique(axis=0)``) takes seconds on the 100,000 grids of a long count.
    """
    flat = grids.reshape(len(grids), -1).astype(np.int64)
    weights = np.random.default_rng(0).integers(1, 2**62, flat.shape[1])
    keys = flat @ weights  # wraps around: a hash, equal for equal rows
    ordered = np.sort(keys)
    for key in np.unique(ordered[1:][ordered[1:] == ordered[:-1]]).tolist():
        same = flat[keys == key]
        if len(np.unique(same, axis=0)) < len(same):
            return True
    return False
