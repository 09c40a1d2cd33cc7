"""The backtracking backend: the bitset search of ``native.bitset``, one puzzle or a whole batch per call.

A batch (``search_many``) is grouped by geometry and each group is searched by one compiled
kernel walk (``native.backtrack.search_batch``); every solution of the batch then passes the
checker in one vectorised pass before any result is made.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline
from ..native import NativeInputError
from ..native.backtrack import BatchRun, search_batch
from ..outcome import REASON_TIME_LIMIT
from ..verify import valid_solutions_mask
from .base import BackendError, SearchResult, checked_solutions, no_grids
from .native_base import NativeBackend, NativeRun

__all__ = ["BacktrackBackend"]


class BacktrackBackend(NativeBackend):
    """Complete bitset search (singles, locked candidates, scored guesses); counts without storing.

    It solves batches in one compiled call per geometry (``search_many``), and remembers the
    pace of the last run on each geometry to size its first chunk of work.
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

    def search_many(
        self, puzzles: Sequence[Grid], limit: int = 1, time_limit: float | Deadline | None = None
    ) -> list[SearchResult]:
        """One checked result per puzzle, in order: each geometry's puzzles in one kernel walk.

        ``time_limit`` in seconds applies to each puzzle, a ``Deadline`` is one budget for the
        whole call.  Clashing givens make a puzzle unsatisfiable (complete, no solution); a grid
        beyond 64x64 is that puzzle's failure; a puzzle whose solution fails the checker gets no
        solution, not complete, the checker's verdict as its reason.
        """
        answers: list[SearchResult | None] = [None] * len(puzzles)
        by_geometry: dict[Geometry, list[int]] = {}
        for k, puzzle in enumerate(puzzles):
            by_geometry.setdefault(puzzle.geometry, []).append(k)
        for geometry, members in by_geometry.items():
            group = [puzzles[k] for k in members]
            for k, answer in zip(
                members, self._search_group(geometry, group, limit, time_limit), strict=True
            ):
                answers[k] = answer
        return [answer for answer in answers if answer is not None]

    def _search_group(
        self, geometry: Geometry, puzzles: list[Grid], limit: int, time_limit: float | Deadline | None
    ) -> list[SearchResult]:
        began = time.perf_counter()
        n = geometry.n
        givens = np.stack([puzzle.values.reshape(-1) for puzzle in puzzles])
        try:
            run = self._search(geometry, givens, limit, True, time_limit)
        except NativeInputError as error:
            seconds = (time.perf_counter() - began) / len(puzzles)
            failure = f"{self.name}: {error}"
            return [SearchResult(no_grids(n), False, reason=failure, seconds=seconds) for _ in puzzles]
        stack, owner = run.solutions, run.owner
        # The checker, over the whole batch at once: complete valid grids that keep their givens.
        ok = valid_solutions_mask(Grid.empty(geometry), stack)
        ok &= ((stack == givens[owner]) | (givens[owner] == 0)).all(axis=1)
        ends = np.cumsum(np.bincount(owner, minlength=len(puzzles))).tolist()
        overhead = (time.perf_counter() - began - float(run.seconds.sum())) / len(puzzles)
        counts, complete, timed_out = run.counts.tolist(), run.complete.tolist(), run.timed_out.tolist()
        nodes, seconds = run.nodes.tolist(), (run.seconds + overhead).tolist()
        answers: list[SearchResult] = []
        start = 0
        for b, puzzle in enumerate(puzzles):
            end = ends[b]
            mine = stack[start:end].reshape(-1, n, n)
            if not ok[start:end].all() or (end - start > 1 and _repeats(mine)):
                try:  # the independent checker's verdict, in words
                    checked_solutions(puzzle, mine, self.name)
                except BackendError as error:
                    answers.append(SearchResult(no_grids(n), False, reason=str(error), seconds=seconds[b]))
                    start = end
                    continue
            mine.setflags(write=False)
            count = counts[b]
            reason = REASON_TIME_LIMIT if timed_out[b] else None
            if not timed_out[b] and not complete[b] and count < limit:  # cannot happen: say so, never guess
                reason = "the search stopped before it decided"
            answers.append(
                SearchResult(
                    mine,
                    complete[b],
                    count=count,
                    stats={"nodes": nodes[b]},
                    reason=reason,
                    seconds=seconds[b],
                )
            )
            start = end
        return answers


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
