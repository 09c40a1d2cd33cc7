"""The one signature every Nishio method shares, and the shapes of its answers.

A method answers the three questions about an instance: the decision (``decide``: a placement
inside S, none, or unknown), the closure S' as an (n, n) bool mask, and the number of placements
up to a limit.  Each question takes a time limit in seconds; a limit that stops a method is an
answer, never an exception: ``decide`` says ``Status.UNKNOWN`` with a reason, ``closure`` and
``count_placements`` return None.  Without a limit nothing can stop a method, so the types say
an answer comes back (the overloads below).  ``exact`` is False for a method whose closure may
keep cells that no placement uses (the bipartite-matching relaxation).

A method implements ``_decide``, ``_closure`` and ``_count``, which receive the question's
``Deadline``; the public questions make it from ``time_limit`` and are written once, here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import overload

import numpy as np

from ..limits import Deadline
from ..outcome import Status
from .instance import NishioInstance

__all__ = ["NO_PLACEMENT", "Decision", "NishioCount", "NishioMethod"]


@dataclass(frozen=True, slots=True)
class NishioCount:
    """A placement count: exact when ``complete``, otherwise a lower bound (the limit was reached)."""

    count: int
    complete: bool


@dataclass(frozen=True, slots=True, eq=False)
class Decision:
    """Is there a placement inside S: ``SOLVED`` with one (column per row), ``UNSAT``, or ``UNKNOWN``.

    ``reason`` says why an answer is unknown (``sudoku_cp.outcome``'s reasons, e.g. the time limit).
    """

    status: Status
    placement: np.ndarray | None = None
    reason: str | None = None

    @classmethod
    def found(cls, placement: np.ndarray) -> Decision:
        """S holds this placement."""
        return cls(Status.SOLVED, placement)

    @classmethod
    def unknown(cls, reason: str) -> Decision:
        """The method stopped before it decided."""
        return cls(Status.UNKNOWN, None, reason)


#: The decision "S holds no placement".
NO_PLACEMENT = Decision(Status.UNSAT)


class NishioMethod(ABC):
    """A way to answer Nishio questions (DAG, pattern overlay, matching, SAT, CP-SAT, exact cover)."""

    name: str
    exact: bool

    @abstractmethod
    def _decide(self, instance: NishioInstance, deadline: Deadline) -> Decision:
        """The decision, unknown when the deadline stops the method."""

    @abstractmethod
    def _closure(self, instance: NishioInstance, deadline: Deadline) -> np.ndarray | None:
        """The closure, None when the deadline stops the method."""

    @abstractmethod
    def _count(self, instance: NishioInstance, limit: int | None, deadline: Deadline) -> NishioCount | None:
        """The count up to ``limit``, None when the deadline stops the method."""

    def decide(self, instance: NishioInstance, time_limit: float | None = None) -> Decision:
        """Whether S holds a placement, with one when it does; unknown when the time limit stops it."""
        return self._decide(instance, Deadline(time_limit))

    def find_placement(self, instance: NishioInstance) -> np.ndarray | None:
        """A placement inside S as its column per row, or None when S holds none (no time limit)."""
        decision = self.decide(instance)
        if decision.status is Status.UNKNOWN:  # without a limit only a broken method gives up
            raise RuntimeError(f"{self.name} gave no answer without a time limit: {decision.reason}")
        return decision.placement

    @overload
    def closure(self, instance: NishioInstance, time_limit: None = None) -> np.ndarray: ...

    @overload
    def closure(self, instance: NishioInstance, time_limit: float | None) -> np.ndarray | None: ...

    def closure(self, instance: NishioInstance, time_limit: float | None = None) -> np.ndarray | None:
        """The (n, n) bool mask of cells of S in at least one placement inside S; None when stopped."""
        return self._closure(instance, Deadline(time_limit))

    @overload
    def count_placements(
        self, instance: NishioInstance, limit: int | None = None, time_limit: None = None
    ) -> NishioCount: ...

    @overload
    def count_placements(
        self, instance: NishioInstance, limit: int | None = None, time_limit: float | None = None
    ) -> NishioCount | None: ...

    def count_placements(
        self, instance: NishioInstance, limit: int | None = None, time_limit: float | None = None
    ) -> NishioCount | None:
        """The number of placements inside S, stopping at ``limit`` when one is given; None when stopped."""
        if limit is not None and limit < 1:
            raise ValueError("limit must be at least 1")
        return self._count(instance, limit, Deadline(time_limit))
