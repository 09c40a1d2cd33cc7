"""The exact-cover backend: the native Algorithm X (numba) on the exact-cover model of a puzzle."""

from __future__ import annotations

import time

import numpy as np

from ..exact_cover import build_exact_cover
from ..grid import Grid
from ..native.dlx import solve_exact_cover
from ..verify import given_conflict
from .base import SearchResult, checked_solutions

__all__ = ["DlxBackend"]


class DlxBackend:
    """Algorithm X with the fewest-options heuristic; counts without storing when asked."""

    name = "dlx"

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions by exact cover."""
        n = puzzle.n
        if given_conflict(puzzle) is not None:
            return SearchResult(np.zeros((0, n, n), np.int16), True)
        start = time.monotonic()
        model = build_exact_cover(puzzle)
        indptr = np.arange(0, 4 * model.n_options + 1, 4, dtype=np.int64)
        items = model.option_items.reshape(-1).astype(np.int64)
        found = solve_exact_cover(
            (indptr, items), model.n_items, limit=limit, time_limit=time_limit, keep=True
        )
        grids = [model.decode(chosen) for chosen in found.solutions]
        stack = np.stack(grids) if grids else np.zeros((0, n, n), np.int16)
        stack = checked_solutions(puzzle, stack, self.name)
        stats: dict[str, float | int] = {"nodes": found.nodes, "seconds": time.monotonic() - start}
        count = len(stack)
        return SearchResult(stack if keep else stack[:0], found.complete, found.timed_out, count, stats)
