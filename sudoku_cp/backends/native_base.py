"""What the native (numba) backends share: one ``search_one`` around each engine's own run.

``NativeBackend.search_one`` times the run, says why an answer is unknown and turns an input the
engine cannot take (or a model too large for memory) into a ``BackendError``; a subclass only
runs its engine (``_run``) and reports what it found as a ``NativeRun``.  Clashing givens are
answered here (no solution, a proof), and every solution passes the checker in
``base.checked_answers``.  A run whose model building was stopped by the time limit
(``limits.TimeLimitReached``) is unknown, with the phase in its reason.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from ..checker import given_conflict
from ..grid import Grid
from ..limits import ModelTooLarge, TimeLimitReached
from ..native import NativeInputError
from ..outcome import REASON_CAP, REASON_INCOMPLETE, REASON_TIME_LIMIT
from .base import BackendError, OneByOne, SearchResult, no_grids, stopped

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


class NativeBackend(OneByOne, ABC):
    """A backend whose engine is a native search: subclasses set ``name`` and write ``_run``.

    Whether the engine can exhaust the search space is the registry table's to say (``complete``).
    """

    name: str

    @abstractmethod
    def _run(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> NativeRun:
        """Run the engine on a puzzle whose givens do not clash."""

    def search_one(self, puzzle: Grid, limit: int, time_limit: float | None, keep: bool) -> SearchResult:
        """Raw: up to ``limit`` solutions of ``puzzle``; with ``keep=False`` only count them."""
        if given_conflict(puzzle) is not None:  # the engines expect givens that do not clash
            return SearchResult(no_grids(puzzle.n), True)
        began = time.monotonic()
        try:
            run = self._run(puzzle, limit, time_limit, keep)
        except (NativeInputError, ModelTooLarge) as error:  # e.g. a grid beyond the engine's bitsets
            raise BackendError(f"{self.name}: {error}") from None
        except TimeLimitReached as stop:
            return stopped(puzzle.n, str(stop), {"seconds": time.monotonic() - began})
        stats = {**run.stats, "seconds": time.monotonic() - began}
        return SearchResult(
            run.solutions if keep else run.solutions[:0],
            run.complete,
            count=run.count,
            stats=stats,
            reason=unknown_reason(run, limit),
        )
