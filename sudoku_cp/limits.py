"""Time limits: one ``Deadline`` type, and one way to run a SAT solve that honours it.

Public functions take ``time_limit`` in seconds (``None``: no limit); inside, the limit becomes a
``Deadline`` once, when the work starts, and is passed down as that object, so every phase spends
from the same budget.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from typing import Any

__all__ = ["Deadline", "solve_limited"]


class Deadline:
    """A wall-clock budget that starts when the object is made; ``seconds=None`` means no limit."""

    __slots__ = ("began", "end", "seconds")

    def __init__(self, seconds: float | None = None) -> None:
        if seconds is not None and (math.isnan(seconds) or seconds < 0):
            raise ValueError(f"a time limit must be a number of seconds >= 0, not {seconds}")
        if seconds is not None and math.isinf(seconds):
            seconds = None  # 'inf' is no limit
        self.seconds = seconds
        self.began = time.monotonic()
        self.end = None if seconds is None else self.began + seconds

    def remaining(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        return None if self.end is None else max(self.end - time.monotonic(), 0.0)

    def expired(self) -> bool:
        """True once the budget is spent."""
        return self.end is not None and time.monotonic() >= self.end

    def elapsed(self) -> float:
        """Seconds since the deadline was made."""
        return time.monotonic() - self.began

    def __repr__(self) -> str:
        return f"Deadline({self.seconds})"


def _interruptible(solver: Any) -> bool:
    try:
        solver.clear_interrupt()
    except NotImplementedError:
        return False
    return True


def solve_limited(solver: Any, assumptions: Sequence[int], deadline: Deadline | None) -> bool | None:
    """Solve a python-sat solver under assumptions before the deadline: True, False, or None (unknown).

    Solvers that can be interrupted are stopped by a timer; the others (CaDiCaL through pysat)
    run in rounds of a conflict budget paced to the time left, keeping their learnt clauses.
    Ctrl-C during the solve is a KeyboardInterrupt, whatever the solver's binding makes of it.
    """
    try:
        return _solve_limited(solver, assumptions, deadline)
    except Exception as problem:
        # pysat's C extension turns SIGINT inside a solve into its own error type.
        if "keyboard interrupt" in str(problem).lower():
            raise KeyboardInterrupt from None
        raise


def _solve_limited(solver: Any, assumptions: Sequence[int], deadline: Deadline | None) -> bool | None:
    if deadline is None or deadline.end is None:
        return bool(solver.solve(assumptions=assumptions))
    left = deadline.remaining()
    if not left:
        return None
    if _interruptible(solver):
        timer = threading.Timer(left, solver.interrupt)
        timer.start()
        try:
            answer = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            timer.join()
            solver.clear_interrupt()
        return None if answer is None else bool(answer)
    budget = 1000
    while True:
        began = time.monotonic()
        solver.conf_budget(budget)
        answer = solver.solve_limited(assumptions=assumptions)
        if answer is not None:
            return bool(answer)
        left = deadline.remaining()
        if not left:
            return None
        # Grow the budget, but not past what the last round's pace fits into the time left.
        pace = budget / max(time.monotonic() - began, 1e-6)
        budget = max(100, min(2 * budget, int(pace * left)))
