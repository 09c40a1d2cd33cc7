"""The result of propagation, whichever implementation computed it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Propagation"]


@dataclass(frozen=True, slots=True)
class Propagation:
    """Placed digits and remaining candidates of a batch after propagation.

    ``values``: (B, n*n) int16, 0 = still open; ``candidates``: (B, n*n, n) bool, digit d-1 in
    column d-1 (a placed cell keeps exactly its digit); ``contradiction``: (B,) bool.  For a
    puzzle found contradictory, values and candidates are those at the moment the contradiction
    was found, which depends on the order of work (only the flag is part of the answer).
    """

    values: np.ndarray
    candidates: np.ndarray
    contradiction: np.ndarray
