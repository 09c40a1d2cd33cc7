"""Work budgets for compiled searches that return to Python every so often to check the time.

A numba search cannot watch the clock, so it runs in chunks of a work budget (nodes, iterations,
climb steps) and returns; ``ChunkBudget`` sizes each chunk from the previous one's pace so that
the deadline is checked about every ``seconds`` and never overshot by more than one chunk, and
``ChunkBudget.run`` is the one driver loop of every such search.

A kernel tells the driver what to do by its status: ``BUDGET`` (the chunk's budget is spent) and
``FLUSH`` (its output buffer is full; the driver empties it) ask to be called again, any status
of 0 or more is the kernel's own final answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..limits import Deadline, compile_seconds

__all__ = ["BUDGET", "FLUSH", "ChunkBudget"]

#: Kernel status: the chunk's budget is spent; call again to resume.
BUDGET = -1
#: Kernel status: the output buffer is full; empty it and call again to resume.
FLUSH = -2


@dataclass(slots=True)
class ChunkBudget:
    """The budget of the next chunk (between ``low`` and ``high``), and whether the deadline has passed."""

    deadline: Deadline
    budget: int
    low: int
    high: int
    seconds: float = 0.02
    chunk_began: float = 0.0

    def start(self) -> int:
        """Mark the start of a chunk and return its budget."""
        self.chunk_began = time.monotonic() - compile_seconds()
        return self.budget

    def out_of_time(self, resize: bool = True) -> bool:
        """After a chunk: True once the deadline has passed; otherwise size the next chunk.

        ``resize=False`` after a chunk that stopped early for another reason (a full output buffer),
        whose pace says nothing about the budget.
        """
        if self.deadline.expired():
            return True
        if resize:
            target = self.seconds
            left = self.deadline.remaining()
            if left is not None:
                target = min(target, max(left, 1e-3))
            # Seconds of work, compilation (a first call's) left out: it says nothing about the pace.
            scale = target / max(time.monotonic() - compile_seconds() - self.chunk_began, 1e-6)
            self.budget = int(min(max(self.budget * min(scale, 4.0), self.low), self.high))
        return False

    def run(self, step: Callable[[int], int], drain: Callable[[], object] | None = None) -> tuple[int, bool]:
        """Call ``step(budget)`` until it returns a final status or the deadline passes.

        ``drain`` runs after every chunk (to empty an output buffer).  Returns the last status and
        whether the deadline stopped the search (then the status is ``BUDGET`` or ``FLUSH``).
        """
        while True:
            status = step(self.start())
            if drain is not None:
                drain()
            if status >= 0:
                return status, False
            if self.out_of_time(resize=status == BUDGET):
                return status, True
