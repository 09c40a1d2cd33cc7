"""Shared pieces of the model-based Nishio methods (SAT, CP-SAT, exact cover): deadlines and checks."""

from __future__ import annotations

import time

import numpy as np

from .instance import NishioInstance, SolveTimeout, placement_problem

__all__ = ["Deadline", "WrongPlacementError", "checked_placement", "has_empty_unit"]


class WrongPlacementError(RuntimeError):
    """A solver returned a placement that is not valid inside S: a bug, never a silent answer."""


def checked_placement(instance: NishioInstance, cols: np.ndarray, method: str) -> np.ndarray:
    """``cols`` as an int64 array after checking it is a valid placement inside S."""
    cols = np.asarray(cols, dtype=np.int64)
    problem = placement_problem(instance, cols)
    if problem is not None:
        raise WrongPlacementError(f"{method} returned an invalid placement {cols.tolist()}: {problem}")
    return cols


def has_empty_unit(instance: NishioInstance) -> bool:
    """True when some row, column or box holds no cell of S (so no placement exists)."""
    g = instance.geometry
    per_unit = instance.mask.reshape(-1)[g.units].any(axis=1)
    return not bool(per_unit.all())


class Deadline:
    """A wall-clock budget started at creation; ``None`` seconds means no limit."""

    def __init__(self, seconds: float | None) -> None:
        if seconds is not None and seconds < 0:
            raise ValueError("a time limit must not be negative")
        self.seconds = seconds
        self.began = time.perf_counter()

    def remaining(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        if self.seconds is None:
            return None
        return max(self.seconds - (time.perf_counter() - self.began), 0.0)

    def expired(self) -> bool:
        """True once the budget is spent."""
        left = self.remaining()
        return left is not None and left <= 0.0

    def check(self, what: str) -> None:
        """Raise SolveTimeout when the budget is spent."""
        if self.expired():
            raise SolveTimeout(f"{what}: time limit of {self.seconds} s reached")
