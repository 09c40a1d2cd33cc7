"""The backtracking backend: bitset propagation and minimum-remaining-values search (numba)."""

from __future__ import annotations

import time

import numpy as np

from ..grid import Grid
from ..native.backtrack import backtrack_search
from ..verify import given_conflict
from .base import SearchResult, checked_solutions

__all__ = ["BacktrackBackend"]


class BacktrackBackend:
    """Complete depth-first search on the ant colony paper's propagation; counts without storing."""

    name = "backtrack"

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions by propagation and MRV backtracking."""
        n = puzzle.n
        if given_conflict(puzzle) is not None:
            return SearchResult(np.zeros((0, n, n), np.int16), True)
        start = time.monotonic()
        found = backtrack_search(puzzle, limit=limit, time_limit=time_limit, keep=keep)
        stack = checked_solutions(puzzle, found.solutions, self.name)
        stats: dict[str, float | int] = {"nodes": found.nodes, "seconds": time.monotonic() - start}
        return SearchResult(stack, found.complete, found.timed_out, found.count, stats)
