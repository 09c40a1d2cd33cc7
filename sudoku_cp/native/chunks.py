"""Work budgets for compiled searches that return to Python every so often to check the time.

A numba search cannot watch the clock, so it runs in chunks of a work budget (nodes, iterations,
climb steps) and returns; ``ChunkBudget`` sizes each chunk from the previous one's pace so that
the time limit is checked about every ``seconds`` and never overshot by more than one chunk.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = ["ChunkBudget"]


@dataclass(slots=True)
class ChunkBudget:
    """The budget of the next chunk, and whether the time limit has passed."""

    time_limit: float | None
    budget: int
    low: int
    high: int
    seconds: float = 0.02
    began: float = field(default_factory=time.perf_counter)
    chunk_began: float = 0.0

    def start(self) -> int:
        """Mark the start of a chunk and return its budget."""
        self.chunk_began = time.perf_counter()
        return self.budget

    def out_of_time(self, resize: bool = True) -> bool:
        """After a chunk: True once the time limit has passed; otherwise size the next chunk.

        ``resize=False`` after a chunk that stopped early for another reason (a full output buffer),
        whose pace says nothing about the budget.
        """
        now = time.perf_counter()
        elapsed = now - self.began
        if self.time_limit is not None and elapsed >= self.time_limit:
            return True
        if resize:
            target = self.seconds
            if self.time_limit is not None:
                target = min(target, max(self.time_limit - elapsed, 1e-3))
            scale = target / max(now - self.chunk_began, 1e-6)
            self.budget = int(min(max(self.budget * min(scale, 4.0), self.low), self.high))
        return False
