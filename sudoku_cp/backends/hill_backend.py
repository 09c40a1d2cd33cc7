"""The hill-climbing backend: Jones, Roach & Perkins' steepest ascent with random restarts (numba).

An incomplete search: it finds a solution or reports *unknown* (time limit, restart or iteration
cap), never "no solution", except in two cases that are proofs: givens that clash, and a puzzle
whose state space is a single state (no box has two empty cells) that is not a solution.
"""

from __future__ import annotations

import numpy as np

from ..grid import Grid
from ..native.hillclimb import HillParameters, build_model, hill_climb
from ..verify import given_conflict
from .base import SearchResult, checked_solutions

__all__ = ["HillBackend"]


class HillBackend:
    """Hill climbing over box permutations; seeded, so the same seed gives the same run."""

    name = "hill"

    def __init__(self, params: HillParameters | None = None, seed: int = 0) -> None:
        self.params = params or HillParameters()
        self.seed = seed

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find one solution (a local search cannot count: ``limit`` > 1 finds at most one)."""
        n = puzzle.n
        none = np.zeros((0, n, n), np.int16)
        if given_conflict(puzzle) is not None:
            return SearchResult(none, complete=True)
        model = build_model(puzzle.geometry, puzzle.values)
        found = hill_climb(model, self.params, seed=self.seed, time_limit=time_limit)
        stats: dict[str, float | int] = {
            "iterations": found.iterations,
            "restarts": found.restarts,
            "seconds": found.seconds,
        }
        if found.solution is None:
            # With no move at all, the only state was tried and failed: that is a proof.
            return SearchResult(none, complete=model.moves == 0, timed_out=found.timed_out, stats=stats)
        stack = checked_solutions(puzzle, found.solution[None], self.name)
        # Every cell is then fixed, so a complete grid is the only solution and the search is complete.
        complete = puzzle.is_complete
        return SearchResult(stack if keep else stack[:0], complete, False, 1, stats)
