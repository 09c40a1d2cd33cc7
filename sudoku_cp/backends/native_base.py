"""What the native (numba) backends share: one ``search`` around each engine's own run.

``NativeBackend.search`` answers clashing givens itself (no solution, a proof), times the run,
passes every solution through the independent checker, says why an answer is unknown and turns
an input the engine cannot take (or a model too large for memory) into a ``BackendError``; a
subclass only runs its engine (``_run``) and reports what it found as a ``NativeRun``.  A run
whose model building was stopped by the time limit (``limits.TimeLimitReached``) is unknown,
with the phase in its reason.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..grid import Grid
from ..limits import ModelTooLarge, TimeLimitReached
from ..native import NativeInputError
from ..outcome import REASON_CAP, REASON_INCOMPLETE, REASON_TIME_LIMIT
from ..verify import given_conflict
from .base import BackendError, SearchResult, checked_solutions, no_grids, stopped

__all__ = ["NativeBackend", "NativeRun", "unknown_reason"]


@dataclass(frozen=True, slots=True)
class NativeRun:
    """What one engine run found: ``solutions`` (k, n, n) not yet checked (none when not kept),
    ``count`` solutions found, ``complete`` (the count is exact), ``timed_out``, and ``stats``."""

    solutions: np.ndarray
    count: int
    complete: bool
    timed_out: bool = False
    stats: dict[str, float | int] = field(default_factory=dict)


def unknown_reason(run: NativeRun, limit: int) -> str | None:
    """Why a run did not decide what it was asked, or None when it did."""
    if run.timed_out:
        return REASON_TIME_LIMIT
    if run.complete or run.count >= limit:
        return None
    # Not exhausted, below the limit and in time: an incomplete engine stopped by its own rule.
    return REASON_INCOMPLETE if run.count else REASON_CAP


class NativeBackend(ABC):
    """A backend whose engine is a native search: subclasses set ``name`` and write ``_run``.

    ``complete`` is False for an engine that cannot exhaust the search space (it finds a solution or
    gives up): such a backend never proves "no solution" or uniqueness, and cannot count.
    """

    name: str
    complete: ClassVar[bool] = True

    @abstractmethod
    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Run the engine on a puzzle whose givens do not clash."""

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions of ``puzzle``; with ``keep=False`` only count them."""
        if given_conflict(puzzle) is not None:
            return SearchResult(no_grids(puzzle.n), True)
        began = time.monotonic()
        try:
            run = self._run(puzzle, limit, time_limit, keep)
        except (NativeInputError, ModelTooLarge) as error:  # e.g. a grid beyond the engine's bitsets
            raise BackendError(f"{self.name}: {error}") from None
        except TimeLimitReached as stop:
            return stopped(puzzle.n, str(stop), {"seconds": time.monotonic() - began})
        stack = checked_solutions(puzzle, run.solutions, self.name)
        stats = {**run.stats, "seconds": time.monotonic() - began}
        return SearchResult(
            stack if keep else stack[:0],
            run.complete,
            count=run.count,
            stats=stats,
            reason=unknown_reason(run, limit),
        )
