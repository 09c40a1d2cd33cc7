"""What every backend shares: the search signature, its result, and the statuses users see.

Every backend answers one question: find up to ``limit`` solutions of a puzzle within a time
limit.  Solving is ``limit=1``, deciding uniqueness is ``limit=2``, counting is a large limit.
Each solution a backend returns has been decoded to a grid and passed the independent checker
(``sudoku_cp.verify``); a backend that produces a wrong grid raises ``BackendError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from ..grid import Grid
from ..outcome import Status
from ..verify import valid_solutions_mask

__all__ = ["Backend", "BackendError", "SearchResult", "Status", "checked_solutions"]


class BackendError(RuntimeError):
    """A backend failed: a missing or crashing solver program, or an answer that is not a solution."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Up to ``limit`` verified solutions, and whether the search covered the whole space.

    ``complete`` is True when the search space was exhausted, so ``count`` is exact;
    ``timed_out`` is True when the time limit stopped the search first (then the count is only
    a lower bound, and zero solutions means *unknown*, never *no solution*).
    """

    solutions: np.ndarray
    complete: bool
    timed_out: bool = False
    count: int = -1
    stats: dict[str, float | int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.count < 0:
            object.__setattr__(self, "count", int(self.solutions.shape[0]))


class Backend(Protocol):
    """A solver of whole puzzles."""

    name: str

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions of ``puzzle``; with ``keep=False`` only count them."""
        ...


def checked_solutions(puzzle: Grid, solutions: np.ndarray, backend: str) -> np.ndarray:
    """Return the (k, n, n) stack of solutions if every one is valid.

    Raise BackendError naming the first bad one.
    """
    n = puzzle.n
    stack = np.asarray(solutions, dtype=np.int16).reshape(-1, n, n)
    ok = valid_solutions_mask(puzzle, stack)
    if not ok.all():
        from ..verify import solution_problem

        bad = int(np.flatnonzero(~ok)[0])
        problem = solution_problem(puzzle, puzzle.with_values(np.clip(stack[bad], 0, n)))
        raise BackendError(f"backend {backend} returned a wrong solution: {problem or 'values out of range'}")
    if len(stack) > 1 and len(np.unique(stack.reshape(len(stack), -1), axis=0)) != len(stack):
        raise BackendError(f"backend {backend} returned the same solution twice")
    stack.setflags(write=False)
    return stack
