"""What every backend shares: the search signature, its result, and the statuses users see.

Every backend answers one question: find up to ``limit`` solutions of a puzzle within a time
limit.  Solving is ``limit=1``, deciding uniqueness is ``limit=2``, counting is a large limit.
Each solution a backend returns has been decoded to a grid and passed the independent checker
(``sudoku_cp.verify``); a backend that produces a wrong grid raises ``BackendError``.

A backend may also solve many puzzles in one call (``BatchBackend.search_many``): one
``SearchResult`` per puzzle, in order, where a failure on one puzzle is that puzzle's answer
(not complete, with the failure as its ``reason``) instead of an exception that loses the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import SudokuCpError
from ..grid import Grid
from ..limits import Deadline
from ..outcome import REASON_TIME_LIMIT, Status
from ..verify import valid_solutions_mask

__all__ = [
    "Backend",
    "BackendError",
    "BatchBackend",
    "SearchResult",
    "Status",
    "checked_solutions",
    "no_grids",
    "stopped",
]


class BackendError(SudokuCpError, RuntimeError):
    """A backend failed: a missing or crashing solver program, or an answer that is not a solution."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Up to ``limit`` verified solutions, and whether the search covered the whole space.

    ``complete`` is True when the search space was exhausted, so ``count`` is exact.
    ``reason`` is None when the search decided what it was asked (it was exhaustive, or it found
    ``limit`` solutions); otherwise it says why it stopped first: ``outcome.REASON_TIME_LIMIT``,
    ``outcome.REASON_CAP``, ``outcome.REASON_INCOMPLETE`` or a solver failure in words.  Then the
    count is only a lower bound, and zero solutions means *unknown*, never *no solution*.
    ``seconds``: the time spent on this puzzle, when the backend measured it itself (batches).
    """

    solutions: np.ndarray
    complete: bool
    count: int = -1
    stats: dict[str, float | int] = field(default_factory=dict)
    reason: str | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.count < 0:
            object.__setattr__(self, "count", int(self.solutions.shape[0]))

    @property
    def timed_out(self) -> bool:
        """True when the time limit stopped the search (``reason`` says so)."""
        return self.reason is not None and self.reason.startswith(REASON_TIME_LIMIT)


class Backend(Protocol):
    """A solver of whole puzzles."""

    name: str

    def search(
        self, puzzle: Grid, limit: int = 1, time_limit: float | None = None, keep: bool = True
    ) -> SearchResult:
        """Find up to ``limit`` solutions of ``puzzle``; with ``keep=False`` only count them."""
        ...


@runtime_checkable
class BatchBackend(Backend, Protocol):
    """A backend that also solves a whole batch in one call, faster than puzzle by puzzle.

    ``batch_name`` names what solves the batches, when that differs from ``name`` (what solves
    one puzzle given to ``search``): plain ``pysat`` batches run Minicard, single puzzles CaDiCaL.
    """

    name: str
    batch_name: str

    def search_many(
        self, puzzles: Sequence[Grid], limit: int = 1, time_limit: float | Deadline | None = None
    ) -> list[SearchResult]:
        """One result per puzzle, in order; ``time_limit`` in seconds applies to each puzzle, a
        ``Deadline`` is one budget for the whole call.

        A puzzle whose givens clash is unsatisfiable (complete, no solution); a failure on one
        puzzle is its result (no solution, not complete, the failure as ``reason``).  Each result
        carries its ``seconds``.
        """
        ...


def no_grids(n: int) -> np.ndarray:
    """An empty (0, n, n) int16 stack of solutions."""
    return np.zeros((0, n, n), np.int16)


def stopped(n: int, reason: str, stats: dict[str, float | int] | None = None) -> SearchResult:
    """The answer of a search stopped before it found anything: no solution, not complete, and why
    (e.g. "time limit reached during propagation")."""
    return SearchResult(no_grids(n), False, stats=stats or {}, reason=reason)


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
