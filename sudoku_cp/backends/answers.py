"""The answers of a batch search as arrays: what a batch backend hands the batch driver without one
object per puzzle.

A backend that can answer a whole stack of puzzles of one geometry at once offers
``search_arrays(geometry, values, limit, time_limit) -> BatchAnswers`` beside ``search_many``;
``api.solve_items`` uses it when present and builds its results straight from the arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ..geometry import Geometry
from ..grid import Grid
from ..limits import Deadline
from .base import SearchResult

__all__ = ["SearchManyByArrays", "ArrayBackend", "BatchAnswers", "search_many_by_arrays"]


@dataclass(frozen=True, slots=True)
class BatchAnswers:
    """What a search found for each of B puzzles of one geometry.

    ``solutions``: (B, n*n) int16, each puzzle's first checked solution (zeros where it has none);
    ``counts``: (B,) int64 solutions found (up to the limit); ``complete``: (B,) bool, the search
    space was exhausted, so the count is exact; ``seconds``: (B,) float64 spent on each puzzle
    (its own search and a share of the batch's common work).  The few puzzles with more to say
    have it in dictionaries keyed by position: ``reasons`` (why the search stopped before it
    decided, or why an answer was refused, as in ``SearchResult.reason``), ``more`` (the
    solutions after the first, (k, n*n)) and ``stats``.
    """

    geometry: Geometry
    solutions: np.ndarray
    counts: np.ndarray
    complete: np.ndarray
    seconds: np.ndarray
    reasons: dict[int, str] = field(default_factory=dict)
    more: dict[int, np.ndarray] = field(default_factory=dict)
    stats: dict[int, dict[str, float | int]] = field(default_factory=dict)

    @classmethod
    def of_results(cls, geometry: Geometry, results: list[SearchResult]) -> BatchAnswers:
        """The answers holding one ``SearchResult`` per puzzle."""
        size = geometry.n**2
        solutions = np.zeros((len(results), size), dtype=np.int16)
        more: dict[int, np.ndarray] = {}
        for k, found in enumerate(results):
            if len(found.solutions):
                solutions[k] = found.solutions[0].reshape(-1)
            if len(found.solutions) > 1:
                more[k] = np.asarray(found.solutions[1:], dtype=np.int16).reshape(-1, size)
        return cls(
            geometry,
            solutions,
            np.array([found.count for found in results], dtype=np.int64),
            np.array([found.complete for found in results], dtype=bool),
            np.array([found.seconds or 0.0 for found in results], dtype=np.float64),
            {k: found.reason for k, found in enumerate(results) if found.reason is not None},
            more,
            {k: dict(found.stats) for k, found in enumerate(results) if found.stats},
        )

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    def result(self, k: int) -> SearchResult:
        """The ``SearchResult`` of puzzle ``k``: its solutions as a read-only (count, n, n) stack."""
        n = self.geometry.n
        count = int(self.counts[k])
        stack = self.solutions[k : k + 1] if count else self.solutions[:0]
        if k in self.more:
            stack = np.concatenate([stack, self.more[k]])
        grids = np.array(stack, dtype=np.int16).reshape(-1, n, n)
        grids.setflags(write=False)
        return SearchResult(
            grids,
            bool(self.complete[k]),
            count=count,
            stats=dict(self.stats.get(k, {})),
            reason=self.reasons.get(k),
            seconds=float(self.seconds[k]),
        )

    def results(self) -> list[SearchResult]:
        """One ``SearchResult`` per puzzle, in order."""
        return [self.result(k) for k in range(len(self))]


@runtime_checkable
class ArrayBackend(Protocol):
    """A batch backend that answers a (B, n*n) stack of puzzles of one geometry with arrays."""

    def search_arrays(
        self,
        geometry: Geometry,
        values: np.ndarray,
        limit: int = 1,
        time_limit: float | Deadline | None = None,
    ) -> BatchAnswers:
        """Answers for every row of ``values``, in order; ``time_limit`` as in ``search_many``."""
        ...


def search_many_by_arrays(
    backend: ArrayBackend,
    puzzles: Sequence[Grid],
    limit: int = 1,
    time_limit: float | Deadline | None = None,
) -> list[SearchResult]:
    """``search_many`` of a backend that answers arrays: one ``search_arrays`` call per geometry,
    one ``SearchResult`` per puzzle, in order."""
    answers: list[SearchResult | None] = [None] * len(puzzles)
    by_geometry: dict[Geometry, list[int]] = {}
    for k, puzzle in enumerate(puzzles):
        by_geometry.setdefault(puzzle.geometry, []).append(k)
    for geometry, members in by_geometry.items():
        values = np.stack([puzzles[k].values.reshape(-1) for k in members])
        found = backend.search_arrays(geometry, values, limit, time_limit)
        for k, answer in zip(members, found.results(), strict=True):
            answers[k] = answer
    return [answer for answer in answers if answer is not None]


class SearchManyByArrays:
    """Mixin: ``search_many`` for a backend that answers arrays (see ``search_many_by_arrays``)."""

    def search_many(
        self, puzzles: Sequence[Grid], limit: int = 1, time_limit: float | Deadline | None = None
    ) -> list[SearchResult]:
        """Up to ``limit`` checked solutions of each puzzle (any geometries), in order: one
        ``search_arrays`` call per geometry."""
        return search_many_by_arrays(self, puzzles, limit, time_limit)  # type: ignore[arg-type]
