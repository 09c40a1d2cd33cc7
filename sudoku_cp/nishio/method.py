"""The one signature every Nishio method shares.

A method answers the three questions about an instance: a placement inside S or None
(decision), the closure S' as an (n, n) bool mask, and the number of placements up to a limit.
Methods that run a solver take a time limit and raise ``SolveTimeout`` when it stops them, so
an interrupted answer is *unknown*, never "no placement".  ``exact`` is False for a method
whose closure may keep cells that no placement uses (the bipartite-matching relaxation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .instance import NishioInstance

__all__ = ["NishioCount", "NishioMethod"]


@dataclass(frozen=True, slots=True)
class NishioCount:
    """A placement count: exact when ``complete``, otherwise a lower bound (the limit was reached)."""

    count: int
    complete: bool


class NishioMethod(Protocol):
    """A way to answer Nishio questions (DAG, pattern overlay, matching, SAT, CP-SAT, exact cover)."""

    name: str
    exact: bool

    def find_placement(self, instance: NishioInstance, time_limit: float | None = None) -> np.ndarray | None:
        """A placement inside S as its column per row, or None when S holds none."""
        ...

    def closure(self, instance: NishioInstance, time_limit: float | None = None) -> np.ndarray:
        """The (n, n) bool mask of cells of S that lie in at least one placement inside S."""
        ...

    def count_placements(
        self, instance: NishioInstance, limit: int | None = None, time_limit: float | None = None
    ) -> NishioCount:
        """The number of placements inside S, stopping at ``limit`` when one is given."""
        ...
