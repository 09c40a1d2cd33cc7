"""The backtracking backend: bitset propagation and minimum-remaining-values search (numba)."""

from __future__ import annotations

from ..grid import Grid
from ..native.backtrack import backtrack_search
from .native_base import NativeBackend, NativeRun

__all__ = ["BacktrackBackend"]


class BacktrackBackend(NativeBackend):
    """Complete depth-first search on the ant colony paper's propagation; counts without storing."""

    name = "backtrack"

    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Find up to ``limit`` solutions by propagation and MRV backtracking."""
        found = backtrack_search(puzzle, limit=limit, time_limit=time_limit, keep=keep)
        return NativeRun(
            found.solutions, found.count, found.complete, found.timed_out, {"nodes": found.nodes}
        )
