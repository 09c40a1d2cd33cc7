"""Ground truth: what SAT says about a puzzle, decided at most once per puzzle and only when asked.

Claims about the number of solutions ("no solution", "unique", "multiple") are decided by a
complete backend (python-sat by default) with search limit 2; ``GroundTruth`` caches the answer
for every later run and solver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..backends.base import Backend, BackendError
from ..backends.registry import make_backend
from ..grid import Grid
from ..verify import given_conflict

__all__ = ["REMEMBERED", "GroundTruth", "Truth"]


@dataclass(frozen=True, slots=True)
class Truth:
    """What SAT says about a puzzle: up to two of its solutions (two means 'more than one')."""

    solutions: tuple[Grid, ...]
    reason: str = ""  # why there is no solution when SAT was not needed (equal givens)

    @property
    def count(self) -> int:
        """0, 1 or 2 (two or more)."""
        return len(self.solutions)


#: Puzzles whose truth a ``GroundTruth`` remembers (the oldest is forgotten first): enough for
#: every solver and run of a chunk, bounded for a worker process that serves batch after batch.
REMEMBERED = 100_000


class GroundTruth:
    """SAT decisions per puzzle, made at most once each (of the last ``remembered`` puzzles), with
    ``backend`` (python-sat by default)."""

    def __init__(self, backend: str = "pysat", *, remembered: int = REMEMBERED) -> None:
        self.backend = backend
        self.remembered = remembered
        self._engine: Backend | None = None
        self._known: dict[Grid, Truth] = {}
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, puzzle: Grid) -> Truth:
        """The truth about ``puzzle``: a cached SAT search with limit 2."""
        known = self._known.get(puzzle)
        if known is None:
            known = self._decide(puzzle)
            if len(self._known) >= self.remembered:
                del self._known[next(iter(self._known))]
            self._known[puzzle] = known
        return known

    def _decide(self, puzzle: Grid) -> Truth:
        conflict = given_conflict(puzzle)
        if conflict is not None:
            return Truth((), f"equal givens: {conflict}")
        if self._engine is None:
            self._engine = make_backend(self.backend)
        start = time.perf_counter()
        found = self._engine.search(puzzle, 2)  # solutions already passed the checker (base.py)
        self.calls += 1
        self.seconds += time.perf_counter() - start
        if found.count < 2 and not found.complete:  # an incomplete search proves nothing
            raise BackendError(f"the ground truth ({self.backend}) did not finish its search")
        return Truth(tuple(puzzle.with_values(values) for values in found.solutions[:2]))
